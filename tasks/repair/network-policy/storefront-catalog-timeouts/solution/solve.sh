#!/bin/sh
set -e
# storefront logs: dial tcp catalog:8080: i/o timeout. catalog-ingress admits
# app=storefront,tier=web, but the storefront pods are tier=frontend.
kubectl -n shop patch networkpolicy catalog-ingress --type=json -p \
  '[{"op": "replace", "path": "/spec/ingress/0/from/0/podSelector/matchLabels/tier", "value": "frontend"}]'
kubectl -n shop rollout status deployment/storefront --timeout=60s
kubectl -n shop wait pod -l app=storefront --for=condition=Ready --timeout=60s
