#!/bin/sh
set -e
# "Cannot evict pod as it would violate the pod's disruption budget": minAvailable 2 of 2
# replicas allows no disruption. Add a replica elsewhere, drain, go back to 2.
kubectl -n shop scale deployment api --replicas=3
kubectl -n shop rollout status deployment/api --timeout=60s
kubectl drain node-2 --ignore-daemonsets --delete-emptydir-data --timeout=150s
kubectl -n shop scale deployment api --replicas=2
kubectl -n shop rollout status deployment/api --timeout=60s
