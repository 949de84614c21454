#!/bin/sh
# a rolling restart replaces the api's pods one by one on the schedulable nodes (surge 1,
# none unavailable), after which the drain has nothing left to evict
set -e
kubectl -n shop rollout restart deployment/api
kubectl -n shop rollout status deployment/api --timeout=90s
kubectl drain node-2 --ignore-daemonsets --delete-emptydir-data --timeout=120s
kubectl -n shop rollout status deployment/api --timeout=60s
