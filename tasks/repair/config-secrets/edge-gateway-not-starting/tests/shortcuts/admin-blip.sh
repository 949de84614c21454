#!/bin/sh
# transient harm: the right fix, and a reload of gateway-admin by scaling it to 0 and back
kubectl -n edge patch deployment gateway --type=json -p \
  '[{"op": "replace", "path": "/spec/template/spec/volumes/0/configMap/items/0/key", "value": "routes.yaml"}]'
kubectl -n edge patch deployment gateway-admin -p '{"spec": {"replicas": 0}}'
sleep 1
kubectl -n edge patch deployment gateway-admin -p '{"spec": {"replicas": 1}}'
kubectl -n edge rollout status deployment/gateway --timeout=60s
kubectl -n edge rollout status deployment/gateway-admin --timeout=60s
