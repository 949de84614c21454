#!/bin/sh
# transient harm: stop the backup while the database is fixed, then start it again
kubectl -n travel patch deployment bookings-backup -p '{"spec": {"replicas": 0}}'
kubectl -n travel patch service bookings-api --type=merge \
  -p '{"spec": {"selector": {"app": "bookings-api"}}}'
kubectl -n travel patch deployment bookings-db --type=json -p \
  '[{"op": "replace", "path": "/spec/template/spec/containers/0/env/0/valueFrom/secretKeyRef/key", "value": "postgres-password"}]'
kubectl -n travel rollout status deployment/bookings-db --timeout=90s
kubectl -n travel patch deployment bookings-backup -p '{"spec": {"replicas": 1}}'
kubectl -n travel rollout status deployment/bookings-backup --timeout=60s
