#!/bin/sh
set -e
# FailedScheduling: persistentvolumeclaim "upload" not found. The namespace's claim,
# bound to the uploads volume, is "uploads".
kubectl -n media patch deployment thumbnailer --type=json -p \
  '[{"op": "replace", "path": "/spec/template/spec/volumes/0/persistentVolumeClaim/claimName", "value": "uploads"}]'
kubectl -n media rollout status deployment/thumbnailer --timeout=60s
