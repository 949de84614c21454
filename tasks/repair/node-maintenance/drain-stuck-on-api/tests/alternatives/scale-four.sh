#!/bin/sh
# a wider margin: four replicas with kubectl scale, so the drain evicts both node-2 pods
# straight away, then back down to the usual 2
set -e
kubectl -n shop scale deployment/api --replicas=4
kubectl -n shop rollout status deployment/api --timeout=90s
kubectl drain node-2 --ignore-daemonsets --delete-emptydir-data --timeout=150s
kubectl -n shop scale deployment/api --replicas=2
kubectl -n shop rollout status deployment/api --timeout=60s
