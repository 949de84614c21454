#!/bin/sh
# a private copy with the old key, and point payments at it
kubectl -n payments create configmap payments-config-v2 \
  --from-literal=queue-url=redis://queue:6379 --from-literal=mode=live
kubectl -n payments patch deployment payments --type=json -p \
  '[{"op": "replace", "path": "/spec/template/spec/containers/0/env/0/valueFrom/configMapKeyRef/name", "value": "payments-config-v2"},
    {"op": "replace", "path": "/spec/template/spec/containers/0/env/1/valueFrom/configMapKeyRef/name", "value": "payments-config-v2"}]'
