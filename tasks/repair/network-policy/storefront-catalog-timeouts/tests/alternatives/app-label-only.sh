#!/bin/sh
# admit the storefront by its app label alone (no tier), by matchExpressions
set -e
kubectl -n shop patch networkpolicy catalog-ingress --type=json -p \
  '[{"op": "replace", "path": "/spec/ingress/0/from/0/podSelector", "value":
     {"matchExpressions": [{"key": "app", "operator": "In", "values": ["storefront"]}]}}]'
kubectl -n shop wait pod -l app=storefront --for=condition=Ready --timeout=60s
