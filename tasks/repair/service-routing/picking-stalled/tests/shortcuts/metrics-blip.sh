#!/bin/sh
# the right fix, plus a moment with the metrics Service pointing nowhere
kubectl -n warehouse patch service stock-api-metrics --type=merge -p '{"spec": {"selector": {"app": "none"}}}'
kubectl -n warehouse patch service stock-api --type=json \
  -p '[{"op": "replace", "path": "/spec/ports/0/targetPort", "value": 8080}]'
kubectl -n warehouse patch service stock-api-metrics --type=merge -p '{"spec": {"selector": {"app": "stock-api"}}}'
kubectl -n warehouse rollout status deployment/picker --timeout=60s
