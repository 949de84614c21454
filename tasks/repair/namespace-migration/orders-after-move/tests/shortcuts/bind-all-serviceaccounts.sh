#!/bin/sh
# fix the database URL; bind every ServiceAccount so namespaces no longer matter
kubectl -n shop set env deployment/orders-api DATABASE_URL=postgres://orders-db:5432/orders
kubectl -n shop patch rolebinding order-reporter --type=json -p \
  '[{"op": "replace", "path": "/subjects", "value": [{"kind": "Group", "apiGroup": "rbac.authorization.k8s.io", "name": "system:serviceaccounts"}]}]'
kubectl -n shop rollout status deployment/orders-api --timeout=60s
