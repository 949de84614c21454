#!/bin/sh
# bypass the Secret with a literal
kubectl -n payments set env deployment/payments-api DATABASE_URL=postgres://payments-db:5432/payments
kubectl -n payments rollout status deployment/payments-api --timeout=60s
