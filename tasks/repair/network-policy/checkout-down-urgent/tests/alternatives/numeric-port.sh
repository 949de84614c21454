#!/bin/sh
# admit checkout on the database's port by number
set -e
kubectl -n shop patch networkpolicy orders-db-ingress --type=json -p \
  '[{"op": "replace", "path": "/spec/ingress/0/ports/0/port", "value": 5432}]'
kubectl -n shop rollout status deployment/checkout --timeout=60s
kubectl -n shop wait pod -l app=checkout --for=condition=Ready --timeout=60s
