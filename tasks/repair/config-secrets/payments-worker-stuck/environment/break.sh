#!/bin/sh
# the clean-up: once payments-audit has started (its environment resolved from the old
# key), the key is renamed to snake_case and the payments worker restarted
set -e
for _ in $(seq 1 300); do
  kubectl -n payments get pods -l app=payments-audit \
    -o jsonpath='{.items[*].status.phase}' | grep -q Running && break
  sleep 0.2
done
kubectl -n payments patch configmap payments-config --type=json -p \
  '[{"op": "remove", "path": "/data/queue-url"}, {"op": "add", "path": "/data/queue_url", "value": "redis://queue:6379"}]'
kubectl -n payments delete pod -l app=payments --wait=false
