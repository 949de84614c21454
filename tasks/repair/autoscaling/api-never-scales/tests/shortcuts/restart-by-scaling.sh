#!/bin/sh
# transient harm: fix the target, then "restart" the API by scaling it to 0 and back so the
# autoscaler starts from fresh pods (the API is down meanwhile)
kubectl -n web patch hpa api-server --type=merge \
  -p '{"spec": {"scaleTargetRef": {"name": "api-server"}}}'
kubectl -n web scale deployment api-server --replicas=0
sleep 2
kubectl -n web scale deployment api-server --replicas=2
for i in $(seq 1 30); do
  n=$(kubectl -n web get deployment api-server -o jsonpath='{.spec.replicas}')
  [ "$n" -gt 2 ] && break
  sleep 2
done
kubectl -n web rollout status deployment/api-server --timeout=60s
