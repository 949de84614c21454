#!/bin/sh
set -e
# orders-api logs: dial tcp orders-db.shop-old.svc:5432 refused (shop-old's database is
# scaled to 0); shop has its own orders-db. The reporter's binding names the shop-old
# ServiceAccount. invoice-sync's shop-old reference is right: the queue has not moved.
kubectl -n shop set env deployment/orders-api DATABASE_URL=postgres://orders-db:5432/orders
kubectl -n shop patch rolebinding order-reporter --type=json \
  -p '[{"op": "replace", "path": "/subjects/0/namespace", "value": "shop"}]'
kubectl -n shop rollout status deployment/orders-api --timeout=60s
kubectl -n shop rollout status deployment/order-reporter --timeout=60s
