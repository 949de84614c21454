#!/bin/sh
# JSON patch of the one wrong selector value
set -e
kubectl -n shop patch service orders-db --type=json \
  -p '[{"op": "replace", "path": "/spec/selector/app", "value": "orders-db"}]'
kubectl -n shop rollout status deployment/checkout --timeout=60s
