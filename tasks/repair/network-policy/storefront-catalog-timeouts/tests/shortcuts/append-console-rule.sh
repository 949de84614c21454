#!/bin/sh
# the fix, plus an extra rule appended for the admin console's catalog page
kubectl -n shop patch networkpolicy catalog-ingress --type=json -p '[
  {"op": "replace", "path": "/spec/ingress/0/from/0/podSelector/matchLabels/tier", "value": "frontend"},
  {"op": "add", "path": "/spec/ingress/-", "value": {"from": [{"podSelector": {"matchLabels": {"app": "admin-console"}}}]}}]'
kubectl -n shop wait pod -l app=storefront --for=condition=Ready --timeout=60s
