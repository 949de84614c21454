#!/bin/sh
# make room for the api's extra replica by pausing the worker for a moment
kubectl -n shop scale deployment/worker --replicas=0
kubectl -n shop scale deployment/api --replicas=3
kubectl -n shop rollout status deployment/api --timeout=60s
kubectl drain node-2 --ignore-daemonsets --delete-emptydir-data --timeout=90s
kubectl -n shop scale deployment/api --replicas=2
kubectl -n shop scale deployment/worker --replicas=2
kubectl -n shop rollout status deployment/worker --timeout=60s
