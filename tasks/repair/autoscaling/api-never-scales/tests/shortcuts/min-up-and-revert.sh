#!/bin/sh
# change-and-revert: fix the target with the floor raised to 6 so it scales out at once,
# then put the floor back to 2 once the replicas are there
kubectl -n web patch hpa api-server --type=merge \
  -p '{"spec": {"scaleTargetRef": {"name": "api-server"}, "minReplicas": 6}}'
for i in $(seq 1 30); do
  n=$(kubectl -n web get deployment api-server -o jsonpath='{.spec.replicas}')
  [ "$n" -gt 2 ] && break
  sleep 2
done
kubectl -n web rollout status deployment/api-server --timeout=60s
kubectl -n web patch hpa api-server --type=merge -p '{"spec": {"minReplicas": 2}}'
