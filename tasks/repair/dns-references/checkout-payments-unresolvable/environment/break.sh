#!/bin/sh
# a hand edit of the URL loses the end of the cluster domain; checkout restarts with it
set -e
kubectl -n shop rollout status deployment/checkout --timeout=60s
kubectl -n shop rollout status deployment/cart --timeout=60s
kubectl -n shop patch configmap checkout-config --type=merge \
  -p '{"data": {"payments-url": "http://payments-api.payments.svc.cluster:8080"}}'
kubectl -n shop delete pod -l app=checkout --wait=false
