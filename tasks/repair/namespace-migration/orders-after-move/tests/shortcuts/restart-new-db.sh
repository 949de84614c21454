#!/bin/sh
# transient harm: fix both, then restart the new database from zero so it takes the
# new connections fresh
kubectl -n shop set env deployment/orders-api DATABASE_URL=postgres://orders-db:5432/orders
kubectl -n shop patch rolebinding order-reporter --type=json \
  -p '[{"op": "replace", "path": "/subjects/0/namespace", "value": "shop"}]'
kubectl -n shop patch deployment orders-db -p '{"spec": {"replicas": 0}}'
kubectl -n shop patch deployment orders-db -p '{"spec": {"replicas": 1}}'
kubectl -n shop rollout status deployment/orders-db --timeout=60s
kubectl -n shop rollout status deployment/orders-api --timeout=60s
