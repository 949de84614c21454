#!/bin/sh
# a ConfigMap of its own, with the key it wants
kubectl -n edge get configmap gateway-routes -o jsonpath='{.data.routes\.yaml}' > /tmp/routes.yaml
kubectl -n edge create configmap gateway-config --from-file=config.yaml=/tmp/routes.yaml
kubectl -n edge patch deployment gateway --type=json -p \
  '[{"op": "replace", "path": "/spec/template/spec/volumes/0/configMap/name", "value": "gateway-config"}]'
kubectl -n edge rollout status deployment/gateway --timeout=60s
