#!/bin/sh
set -e
# payments-api logs: dial tcp payments-db:5433: i/o timeout. Production's payments-db
# Service listens on 5432 (5433 is staging's port): put the right port back in production's
# Secret and restart production's API only.
url=$(kubectl -n payments get secret payments-api -o jsonpath='{.data.database-url}' \
  | base64 -d | sed 's#:5433/#:5432/#')
kubectl -n payments patch secret payments-api --type=merge \
  -p "{\"stringData\": {\"database-url\": \"$url\"}}"
kubectl -n payments rollout restart deployment/payments-api
kubectl -n payments rollout status deployment/payments-api --timeout=60s
