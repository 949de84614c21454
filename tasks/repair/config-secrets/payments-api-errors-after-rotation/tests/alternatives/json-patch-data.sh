#!/bin/sh
# replace the base64 data with a JSON patch (namespace-qualified host), restart the API
set -e
url=$(printf '%s' 'postgres://payments-db.payments:5432/payments' | base64 | tr -d '\n')
kubectl -n payments patch secret payments-api --type=json \
  -p "[{\"op\": \"replace\", \"path\": \"/data/database-url\", \"value\": \"$url\"}]"
kubectl -n payments rollout restart deployment/payments-api
kubectl -n payments rollout status deployment/payments-api --timeout=60s
