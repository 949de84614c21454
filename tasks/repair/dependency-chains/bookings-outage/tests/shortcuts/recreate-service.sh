#!/bin/sh
# a fresh Service for the API, and the database's key fixed
kubectl -n travel delete service bookings-api
kubectl -n travel expose deployment bookings-api --port=8080 --target-port=http
kubectl -n travel patch deployment bookings-db --type=json -p \
  '[{"op": "replace", "path": "/spec/template/spec/containers/0/env/0/valueFrom/secretKeyRef/key", "value": "postgres-password"}]'
kubectl -n travel rollout status deployment/bookings-db --timeout=60s
