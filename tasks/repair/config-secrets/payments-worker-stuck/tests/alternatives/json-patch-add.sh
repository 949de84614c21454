#!/bin/sh
# add the key both workers read back beside the new one with a JSON patch
set -e
kubectl -n payments patch configmap payments-config --type=json \
  -p '[{"op": "add", "path": "/data/queue-url", "value": "redis://queue:6379"}]'
kubectl -n payments rollout status deployment/payments --timeout=60s
