#!/bin/sh
# regenerate the ConfigMap with just the setting that matters, and restart checkout
kubectl -n shop create configmap checkout-config \
  --from-literal=payments-url=http://payments-api.payments:8080 --dry-run=client -o yaml \
  | kubectl replace -f -
kubectl -n shop rollout restart deployment/checkout
kubectl -n shop rollout status deployment/checkout --timeout=60s
