#!/bin/sh
# get checkout up on the replica first, fix the Service, then point checkout back
kubectl -n shop set env deployment/checkout DATABASE_URL=postgres://orders-db-replica:5432/orders
kubectl -n shop rollout status deployment/checkout --timeout=60s
kubectl -n shop patch service orders-db --type=merge \
  -p '{"spec": {"selector": {"app": "orders-db", "role": "primary"}}}'
kubectl -n shop set env deployment/checkout DATABASE_URL=postgres://orders-db:5432/orders
kubectl -n shop rollout status deployment/checkout --timeout=60s
