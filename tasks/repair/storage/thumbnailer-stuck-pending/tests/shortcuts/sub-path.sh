#!/bin/sh
# the right claim, mounted from a new, empty sub-directory of it
kubectl -n media patch deployment thumbnailer --type=json -p '[
  {"op": "replace", "path": "/spec/template/spec/volumes/0/persistentVolumeClaim/claimName", "value": "uploads"},
  {"op": "add", "path": "/spec/template/spec/containers/0/volumeMounts/0/subPath", "value": "thumbnailer"}]'
kubectl -n media rollout status deployment/thumbnailer --timeout=60s
