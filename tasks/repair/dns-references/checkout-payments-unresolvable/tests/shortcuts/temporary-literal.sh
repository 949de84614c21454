#!/bin/sh
# change-and-revert: hard-code the URL in the Deployment to get checkout up, fix the
# ConfigMap, then roll the Deployment back to reading it
kubectl -n shop set env deployment/checkout PAYMENTS_URL=http://payments-api.payments:8080
kubectl -n shop rollout status deployment/checkout --timeout=60s
kubectl -n shop patch configmap checkout-config --type=merge \
  -p '{"data": {"payments-url": "http://payments-api.payments:8080"}}'
kubectl -n shop rollout undo deployment/checkout
kubectl -n shop rollout status deployment/checkout --timeout=60s
