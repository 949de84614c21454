#!/bin/sh
# transient harm: fix the URL, then stop and start every reader of checkout-config so
# all of them reload it
kubectl -n shop patch configmap checkout-config --type=merge \
  -p '{"data": {"payments-url": "http://payments-api.payments:8080"}}'
kubectl -n shop patch deployment checkout -p '{"spec": {"replicas": 0}}'
kubectl -n shop patch deployment cart -p '{"spec": {"replicas": 0}}'
kubectl -n shop patch deployment checkout -p '{"spec": {"replicas": 2}}'
kubectl -n shop patch deployment cart -p '{"spec": {"replicas": 2}}'
kubectl -n shop rollout status deployment/checkout --timeout=60s
kubectl -n shop rollout status deployment/cart --timeout=60s
