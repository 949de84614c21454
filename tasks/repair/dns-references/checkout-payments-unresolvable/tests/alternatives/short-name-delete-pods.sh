#!/bin/sh
# the namespace-qualified short name in the ConfigMap; restart by deleting the pods
set -e
kubectl -n shop patch configmap checkout-config --type=merge \
  -p '{"data": {"payments-url": "http://payments-api.payments:8080"}}'
kubectl -n shop delete pod -l app=checkout
kubectl -n shop rollout status deployment/checkout --timeout=60s
kubectl -n shop wait pod -l app=checkout --for=condition=Ready --timeout=60s
