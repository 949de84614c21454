#!/bin/sh
# kubectl set selector on the Service; kubectl set env --from the Secret's current key
set -e
kubectl -n travel set selector service bookings-api app=bookings-api
# the key postgres-password becomes POSTGRES_PASSWORD, replacing the stale reference
kubectl -n travel set env deployment/bookings-db --containers=postgres \
  --from=secret/bookings-db --keys=postgres-password
kubectl -n travel rollout status deployment/bookings-db --timeout=90s
kubectl -n travel wait pod -l app=bookings-api --for=condition=Ready --timeout=60s
kubectl -n travel wait pod -l app=web --for=condition=Ready --timeout=60s
