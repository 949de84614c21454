#!/bin/sh
# give the SSD nodes the old label until the pods are placed, then take it off again
kubectl label node fast-1 fast-2 disktype=ssd --overwrite
kubectl -n search rollout status deployment/indexer --timeout=60s
kubectl label node fast-1 fast-2 disktype-
