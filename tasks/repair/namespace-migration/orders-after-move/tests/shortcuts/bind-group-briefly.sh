#!/bin/sh
# change-and-revert: bind every ServiceAccount of shop until the report shows, then bind
# just the reporter
kubectl -n shop set env deployment/orders-api DATABASE_URL=postgres://orders-db:5432/orders
kubectl -n shop patch rolebinding order-reporter --type=json -p \
  '[{"op": "replace", "path": "/subjects", "value": [{"kind": "Group", "apiGroup": "rbac.authorization.k8s.io", "name": "system:serviceaccounts:shop"}]}]'
kubectl -n shop wait pod -l app=order-reporter --for=condition=Ready --timeout=60s
kubectl -n shop patch rolebinding order-reporter --type=json -p \
  '[{"op": "replace", "path": "/subjects", "value": [{"kind": "ServiceAccount", "name": "order-reporter", "namespace": "shop"}]}]'
kubectl -n shop rollout status deployment/orders-api --timeout=60s
