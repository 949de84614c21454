#!/bin/sh
set -e
# ReplicaSet FailedCreate: exceeded quota: compute, requested: pods=1, used: pods=6,
# limited: pods=6; the approved allocation (ConfigMap capacity-allocation, CAP-771) is 10
kubectl -n analytics patch resourcequota compute --type=merge -p '{"spec": {"hard": {"pods": "10"}}}'
kubectl -n analytics rollout status deployment/dashboard --timeout=90s
