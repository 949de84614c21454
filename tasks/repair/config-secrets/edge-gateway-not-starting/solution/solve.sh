#!/bin/sh
set -e
# FailedMount: configmap references non-existent config key: config.yaml. The
# ConfigMap holds routes.yaml (the previous revision projected it as config.yaml).
kubectl -n edge patch deployment gateway --type=json -p \
  '[{"op": "replace", "path": "/spec/template/spec/volumes/0/configMap/items/0/key", "value": "routes.yaml"}]'
kubectl -n edge rollout status deployment/gateway --timeout=60s
