#!/bin/sh
set -e
# web logs: dial tcp bookings-api:8080 connection refused: the Service selects
# app=booking-api, the pods are app=bookings-api.
kubectl -n travel patch service bookings-api --type=merge \
  -p '{"spec": {"selector": {"app": "bookings-api"}}}'
# bookings-api logs: dial tcp bookings-db:5432 connection refused: the database pod waits
# with couldn't find key password in Secret travel/bookings-db; the key is now
# postgres-password (as bookings-backup reads it).
kubectl -n travel patch deployment bookings-db --type=json -p \
  '[{"op": "replace", "path": "/spec/template/spec/containers/0/env/0/valueFrom/secretKeyRef/key", "value": "postgres-password"}]'
kubectl -n travel rollout status deployment/bookings-db --timeout=90s
kubectl -n travel wait pod -l app=bookings-api --for=condition=Ready --timeout=60s
kubectl -n travel wait pod -l app=web --for=condition=Ready --timeout=60s
