#!/bin/sh
# rewrite production's Secret declaratively with the fully-qualified name of its own database
# Service, then restart production's API by deleting its pods
set -e
kubectl -n payments create secret generic payments-api \
  --from-literal=database-url=postgres://payments-db.payments.svc.cluster.local:5432/payments \
  --dry-run=client -o yaml | kubectl -n payments apply -f -
kubectl -n payments delete pod -l app=payments-api
kubectl -n payments rollout status deployment/payments-api --timeout=60s
