#!/bin/sh
# the clean-up: once payments-audit is running, the key is renamed to snake_case and the
# payments worker restarted
set -e
kubectl -n payments rollout status deployment/payments-audit --timeout=60s
kubectl -n payments patch configmap payments-config --type=json -p \
  '[{"op": "remove", "path": "/data/queue-url"}, {"op": "add", "path": "/data/queue_url", "value": "redis://queue:6379"}]'
kubectl -n payments delete pod -l app=payments --wait=false
