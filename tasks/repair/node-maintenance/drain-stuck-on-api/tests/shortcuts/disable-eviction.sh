#!/bin/sh
# drain without the Eviction API: pods are deleted, the budget is never asked
kubectl drain node-2 --ignore-daemonsets --delete-emptydir-data --disable-eviction --force --timeout=60s
kubectl -n shop rollout status deployment/api --timeout=60s
