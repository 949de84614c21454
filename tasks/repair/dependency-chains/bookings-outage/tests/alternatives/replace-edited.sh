#!/bin/sh
# kubectl edit-style: read each object, correct it, replace it
set -e
kubectl -n travel get service bookings-api -o yaml \
  | sed 's/app: booking-api$/app: bookings-api/' \
  | kubectl replace -f -
kubectl -n travel get deployment bookings-db -o yaml \
  | sed 's/key: password$/key: postgres-password/' \
  | kubectl replace -f -
kubectl -n travel rollout status deployment/bookings-db --timeout=90s
kubectl -n travel wait pod -l app=bookings-api --for=condition=Ready --timeout=60s
kubectl -n travel wait pod -l app=web --for=condition=Ready --timeout=60s
