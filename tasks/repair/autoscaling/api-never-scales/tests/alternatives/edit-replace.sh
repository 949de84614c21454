#!/bin/sh
# kubectl edit-style: read the autoscaler, correct its target's name, replace the object
set -e
kubectl -n web get hpa api-server -o yaml \
  | sed 's/^    name: api$/    name: api-server/' \
  | kubectl replace -f -
for i in $(seq 1 30); do
  n=$(kubectl -n web get deployment api-server -o jsonpath='{.spec.replicas}')
  [ "$n" -gt 2 ] && break
  sleep 2
done
kubectl -n web rollout status deployment/api-server --timeout=60s
