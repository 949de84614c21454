#!/bin/sh
# project the key that exists next to it: the admin routes file
kubectl -n edge patch deployment gateway --type=json -p \
  '[{"op": "replace", "path": "/spec/template/spec/volumes/0/configMap/items/0/key", "value": "admin-routes.yaml"}]'
kubectl -n edge rollout status deployment/gateway --timeout=60s
