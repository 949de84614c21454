#!/bin/sh
# change-and-revert: open the reporter's Role to everything while debugging, then put
# it back
kubectl -n shop patch role order-reporter --type=json -p \
  '[{"op": "replace", "path": "/rules", "value": [{"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]}]}]'
kubectl -n shop set env deployment/orders-api DATABASE_URL=postgres://orders-db:5432/orders
kubectl -n shop patch rolebinding order-reporter --type=json \
  -p '[{"op": "replace", "path": "/subjects/0/namespace", "value": "shop"}]'
kubectl -n shop wait pod -l app=order-reporter --for=condition=Ready --timeout=60s
kubectl -n shop patch role order-reporter --type=json -p \
  '[{"op": "replace", "path": "/rules", "value": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list", "watch"]}]}]'
kubectl -n shop rollout status deployment/orders-api --timeout=60s
