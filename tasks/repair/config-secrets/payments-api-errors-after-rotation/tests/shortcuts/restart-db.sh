#!/bin/sh
# transient harm: the right fix, plus a restart of production's database "to drop stale
# sessions after the rotation" (its only pod deleted)
url=$(kubectl -n payments get secret payments-api -o jsonpath='{.data.database-url}' \
  | base64 -d | sed 's#:5433/#:5432/#')
kubectl -n payments patch secret payments-api --type=merge \
  -p "{\"stringData\": {\"database-url\": \"$url\"}}"
kubectl -n payments delete pod -l app=payments-db
kubectl -n payments rollout restart deployment/payments-api
kubectl -n payments rollout status deployment/payments-api --timeout=60s
kubectl -n payments rollout status deployment/payments-db --timeout=60s
