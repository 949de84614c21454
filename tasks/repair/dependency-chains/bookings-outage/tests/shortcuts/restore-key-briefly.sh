#!/bin/sh
# change-and-revert: put the old key back until the database has started, then restore
# the Secret as it was; the Deployment still names a key that no longer exists
kubectl -n travel patch service bookings-api --type=merge \
  -p '{"spec": {"selector": {"app": "bookings-api"}}}'
kubectl -n travel patch secret bookings-db --type=json -p \
  '[{"op": "copy", "from": "/data/postgres-password", "path": "/data/password"}]'
kubectl -n travel delete pod -l app=bookings-db
kubectl -n travel rollout status deployment/bookings-db --timeout=60s
kubectl -n travel wait pod -l app=bookings-db --for=condition=Ready --timeout=60s
kubectl -n travel patch secret bookings-db --type=json -p '[{"op": "remove", "path": "/data/password"}]'
kubectl -n travel wait pod -l app=web --for=condition=Ready --timeout=60s
