#!/bin/sh
# admit the frontend tier the storefront belongs to
kubectl -n shop patch networkpolicy catalog-ingress --type=json -p \
  '[{"op": "replace", "path": "/spec/ingress/0/from/0/podSelector", "value": {"matchLabels": {"tier": "frontend"}}}]'
kubectl -n shop wait pod -l app=storefront --for=condition=Ready --timeout=60s
