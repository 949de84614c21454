#!/bin/sh
# a replacement beside the original: a new, correct Service for the API, the web front end
# pointed at it, and the database's key fixed
kubectl -n travel create service clusterip bookings --tcp=8080:http
kubectl -n travel set selector service bookings app=bookings-api
kubectl -n travel set env deployment/web BOOKINGS_URL=http://bookings:8080
kubectl -n travel patch deployment bookings-db --type=json -p \
  '[{"op": "replace", "path": "/spec/template/spec/containers/0/env/0/valueFrom/secretKeyRef/key", "value": "postgres-password"}]'
kubectl -n travel rollout status deployment/bookings-db --timeout=90s
kubectl -n travel rollout status deployment/web --timeout=90s
