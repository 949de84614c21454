#!/bin/sh
# the URL works against staging's database: point production there
kubectl -n payments patch secret payments-api --type=merge \
  -p '{"stringData": {"database-url": "postgres://payments-db.payments-staging:5433/payments"}}'
kubectl -n payments rollout restart deployment/payments-api
kubectl -n payments rollout status deployment/payments-api --timeout=60s
