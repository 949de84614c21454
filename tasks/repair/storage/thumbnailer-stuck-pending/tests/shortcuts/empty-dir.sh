#!/bin/sh
# any volume will do
kubectl -n media patch deployment thumbnailer --type=json -p \
  '[{"op": "replace", "path": "/spec/template/spec/volumes/0", "value": {"name": "uploads", "emptyDir": {}}}]'
kubectl -n media rollout status deployment/thumbnailer --timeout=60s
