#!/bin/sh
set -e
# kubectl describe hpa api-server: FailedGetScale deployments/scale.apps "api" not found;
# the Deployment is api-server.
kubectl -n web patch hpa api-server --type=merge \
  -p '{"spec": {"scaleTargetRef": {"name": "api-server"}}}'
for i in $(seq 1 30); do
  n=$(kubectl -n web get deployment api-server -o jsonpath='{.spec.replicas}')
  [ "$n" -gt 2 ] && break
  sleep 2
done
kubectl -n web rollout status deployment/api-server --timeout=60s
