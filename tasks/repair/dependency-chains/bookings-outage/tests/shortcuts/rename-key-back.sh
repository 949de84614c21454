#!/bin/sh
# fix the selector, and put the Secret's key back the way the database expects it
kubectl -n travel patch service bookings-api --type=merge \
  -p '{"spec": {"selector": {"app": "bookings-api"}}}'
kubectl -n travel patch secret bookings-db --type=json -p \
  '[{"op": "copy", "from": "/data/postgres-password", "path": "/data/password"}]'
kubectl -n travel delete pod -l app=bookings-db
kubectl -n travel rollout status deployment/bookings-db --timeout=60s
