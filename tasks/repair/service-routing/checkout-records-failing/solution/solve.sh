#!/bin/sh
set -e
# checkout logs: dial tcp orders-db:5432 refused; the Service has no endpoints because its
# selector matches no pod. The primary's pods are app=orders-db,role=primary.
kubectl -n shop patch service orders-db --type=merge \
  -p '{"spec": {"selector": {"app": "orders-db", "role": "primary"}}}'
kubectl -n shop rollout status deployment/checkout --timeout=60s
