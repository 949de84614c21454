#!/bin/sh
# fix the selector, and give postgres its password directly
kubectl -n travel patch service bookings-api --type=merge \
  -p '{"spec": {"selector": {"app": "bookings-api"}}}'
pw=$(kubectl -n travel get secret bookings-db -o jsonpath='{.data.postgres-password}' | base64 -d)
kubectl -n travel set env deployment/bookings-db POSTGRES_PASSWORD="$pw"
kubectl -n travel rollout status deployment/bookings-db --timeout=60s
