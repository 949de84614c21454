#!/bin/sh
# fix the database URL; add a binding for the reporter beside the copied one
kubectl -n shop set env deployment/orders-api DATABASE_URL=postgres://orders-db:5432/orders
kubectl -n shop create rolebinding order-reporter-shop --role=order-reporter \
  --serviceaccount=shop:order-reporter
kubectl -n shop rollout status deployment/orders-api --timeout=60s
