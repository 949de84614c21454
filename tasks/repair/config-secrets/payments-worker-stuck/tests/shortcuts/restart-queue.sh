#!/bin/sh
# transient harm: the right fix, plus a restart of the queue (its only pod deleted) "so the
# worker connects to a fresh one"
kubectl -n payments patch configmap payments-config --type=merge \
  -p '{"data": {"queue-url": "redis://queue:6379"}}'
kubectl -n payments delete pod -l app=queue
kubectl -n payments rollout status deployment/payments --timeout=60s
kubectl -n payments rollout status deployment/queue --timeout=60s
