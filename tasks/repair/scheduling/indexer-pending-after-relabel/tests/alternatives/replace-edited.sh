#!/bin/sh
# kubectl edit-style: read the Deployment, change the selector's key, replace it
set -e
kubectl -n search get deployment indexer -o yaml \
  | sed 's/disktype: ssd/disk: ssd/' \
  | kubectl replace -f -
kubectl -n search rollout status deployment/indexer --timeout=60s
