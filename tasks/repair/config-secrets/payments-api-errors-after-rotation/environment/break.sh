#!/bin/sh
# the 09:00 credentials rotation re-rendered production's connection string from the
# staging template (staging's database listens on 5433) and restarted the API
set -e
kubectl -n payments rollout status deployment/payments-api --timeout=60s
kubectl -n payments-staging rollout status deployment/payments-api --timeout=60s
kubectl -n payments patch secret payments-api --type=merge \
  -p '{"stringData": {"database-url": "postgres://payments-db:5433/payments"}}'
kubectl -n payments delete pod -l app=payments-api --wait=false
