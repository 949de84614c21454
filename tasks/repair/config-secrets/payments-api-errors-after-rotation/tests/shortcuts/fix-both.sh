#!/bin/sh
# "rotate" both environments to the same, fixed URL and restart both
for ns in payments payments-staging; do
  kubectl -n $ns patch secret payments-api --type=merge \
    -p '{"stringData": {"database-url": "postgres://payments-db:5432/payments"}}'
  kubectl -n $ns rollout restart deployment/payments-api
done
kubectl -n payments rollout status deployment/payments-api --timeout=60s
