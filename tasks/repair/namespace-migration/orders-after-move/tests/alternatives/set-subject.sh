#!/bin/sh
# kubectl set subject adds shop's ServiceAccount, then the copied subject is removed;
# the database by its namespace-qualified short name
set -e
kubectl -n shop patch deployment orders-api --type=json -p \
  '[{"op": "replace", "path": "/spec/template/spec/containers/0/env/0/value", "value": "postgres://orders-db.shop:5432/orders"}]'
kubectl -n shop set subject rolebinding order-reporter --serviceaccount=shop:order-reporter
kubectl -n shop patch rolebinding order-reporter --type=json -p '[
  {"op": "test", "path": "/subjects/0/namespace", "value": "shop-old"},
  {"op": "remove", "path": "/subjects/0"}]'
kubectl -n shop rollout status deployment/orders-api --timeout=60s
kubectl -n shop wait pod -l app=order-reporter --for=condition=Ready --timeout=60s
