#!/bin/sh
# drop the wrong port and let the client use postgres' default (5432); restart the API
set -e
kubectl -n payments patch secret payments-api --type=merge \
  -p '{"stringData": {"database-url": "postgres://payments-db/payments"}}'
kubectl -n payments rollout restart deployment/payments-api
kubectl -n payments rollout status deployment/payments-api --timeout=60s
