#!/bin/sh
# size it by hand to the maximum first, then fix the autoscaler (which now agrees)
kubectl -n web scale deployment api-server --replicas=6
kubectl -n web patch hpa api-server --type=merge \
  -p '{"spec": {"scaleTargetRef": {"name": "api-server"}}}'
for i in $(seq 1 30); do
  n=$(kubectl -n web get deployment api-server -o jsonpath='{.spec.replicas}')
  [ "$n" -gt 2 ] && break
  sleep 2
done
kubectl -n web rollout status deployment/api-server --timeout=60s
