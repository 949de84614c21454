#!/bin/sh
# transient harm: fix the rule, then stop and start the storefront so it reconnects
kubectl -n shop patch networkpolicy orders-db-ingress --type=json -p \
  '[{"op": "replace", "path": "/spec/ingress/0/ports/0/port", "value": "postgres"}]'
kubectl -n shop patch deployment storefront -p '{"spec": {"replicas": 0}}'
kubectl -n shop patch deployment storefront -p '{"spec": {"replicas": 2}}'
kubectl -n shop rollout status deployment/storefront --timeout=60s
kubectl -n shop rollout status deployment/checkout --timeout=60s
