#!/bin/sh
# the maintenance window: the Secret's key renamed and the backup updated to match (the
# database missed), the bookings-api Service re-applied from a stale manifest, and the
# database restarted.
set -e
for d in bookings-db bookings-api bookings-backup search-db search-api web; do
  kubectl -n travel rollout status deployment/$d --timeout=90s
done
kubectl -n travel patch secret bookings-db --type=json -p \
  '[{"op": "move", "from": "/data/password", "path": "/data/postgres-password"}]'
kubectl -n travel patch deployment bookings-backup --type=json -p \
  '[{"op": "replace", "path": "/spec/template/spec/containers/0/env/1/valueFrom/secretKeyRef/key", "value": "postgres-password"}]'
kubectl -n travel patch service bookings-api --type=merge -p '{"spec": {"selector": {"app": "booking-api"}}}'
kubectl -n travel rollout status deployment/bookings-backup --timeout=90s
kubectl -n travel delete pod -l app=bookings-db --wait=false
