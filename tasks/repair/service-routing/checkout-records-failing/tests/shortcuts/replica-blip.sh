#!/bin/sh
# the right fix, plus a moment with the replica's Service pointing nowhere
kubectl -n shop patch service orders-db-replica --type=merge -p '{"spec": {"selector": {"app": "none"}}}'
kubectl -n shop patch service orders-db --type=merge \
  -p '{"spec": {"selector": {"app": "orders-db", "role": "primary"}}}'
kubectl -n shop patch service orders-db-replica --type=merge -p '{"spec": {"selector": {"app": "orders-db"}}}'
kubectl -n shop rollout status deployment/checkout --timeout=60s
