#!/bin/sh
# mount the routes.yaml key as the file with a subPath mount instead of projecting items
set -e
kubectl -n edge patch deployment gateway --type=json -p '[
  {"op": "remove", "path": "/spec/template/spec/volumes/0/configMap/items"},
  {"op": "replace", "path": "/spec/template/spec/containers/0/volumeMounts/0",
   "value": {"name": "config", "mountPath": "/etc/gateway/config.yaml", "subPath": "routes.yaml",
             "readOnly": true}}]'
kubectl -n edge rollout status deployment/gateway --timeout=60s
