#!/bin/sh
# fix the claim name, and mount the uploads under /data "to keep them apart" (nothing serves them)
kubectl -n media patch deployment thumbnailer --type=json -p '[
  {"op": "replace", "path": "/spec/template/spec/volumes/0/persistentVolumeClaim/claimName", "value": "uploads"},
  {"op": "replace", "path": "/spec/template/spec/containers/0/volumeMounts/0/mountPath", "value": "/data/uploads"}]'
kubectl -n media rollout status deployment/thumbnailer --timeout=60s
