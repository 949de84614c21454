#!/bin/sh
# any orders database in data will do
kubectl -n shop set env deployment/orders DATABASE_URL=postgres://orders-db-replica.data:5432/orders
kubectl -n shop rollout status deployment/orders --timeout=60s
