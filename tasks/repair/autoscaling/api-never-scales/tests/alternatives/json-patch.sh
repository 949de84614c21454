#!/bin/sh
# aim the autoscaler at the renamed Deployment with a JSON patch of the target's name
set -e
kubectl -n web patch hpa api-server --type=json \
  -p '[{"op": "replace", "path": "/spec/scaleTargetRef/name", "value": "api-server"}]'
for i in $(seq 1 30); do
  n=$(kubectl -n web get deployment api-server -o jsonpath='{.spec.replicas}')
  [ "$n" -gt 2 ] && break
  sleep 2
done
kubectl -n web rollout status deployment/api-server --timeout=60s
