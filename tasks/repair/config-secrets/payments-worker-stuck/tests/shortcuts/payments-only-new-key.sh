#!/bin/sh
# point only the stuck worker at queue_url; payments-audit keeps naming the removed key
kubectl -n payments patch deployment payments --type=json -p \
  '[{"op": "replace", "path": "/spec/template/spec/containers/0/env/0/valueFrom/configMapKeyRef/key", "value": "queue_url"}]'
kubectl -n payments rollout status deployment/payments --timeout=60s
