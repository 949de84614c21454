#!/bin/sh
# a fresh ConfigMap with the right URL, and point checkout at it
kubectl -n shop create configmap checkout-config-v2 \
  --from-literal=payments-url=http://payments-api.payments:8080 --from-literal=currency=EUR
kubectl -n shop patch deployment checkout --type=json -p \
  '[{"op": "replace", "path": "/spec/template/spec/containers/0/env/0/valueFrom/configMapKeyRef/name", "value": "checkout-config-v2"},
    {"op": "replace", "path": "/spec/template/spec/containers/0/env/1/valueFrom/configMapKeyRef/name", "value": "checkout-config-v2"}]'
kubectl -n shop rollout status deployment/checkout --timeout=60s
