#!/bin/sh
# follow the clean-up instead: both workers read the new key queue_url (payments-audit rolls
# over to it with a surge pod, never down)
set -e
for d in payments payments-audit; do
  kubectl -n payments patch deployment $d --type=json -p \
    '[{"op": "replace", "path": "/spec/template/spec/containers/0/env/0/valueFrom/configMapKeyRef/key", "value": "queue_url"}]'
done
kubectl -n payments rollout status deployment/payments --timeout=60s
kubectl -n payments rollout status deployment/payments-audit --timeout=60s
