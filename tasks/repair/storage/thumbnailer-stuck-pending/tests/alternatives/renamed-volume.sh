#!/bin/sh
# a new volume entry on the right claim, named differently, and the mount moved to it
set -e
kubectl -n media patch deployment thumbnailer --type=json -p '[
  {"op": "replace", "path": "/spec/template/spec/volumes",
   "value": [{"name": "uploads-data", "persistentVolumeClaim": {"claimName": "uploads"}}]},
  {"op": "replace", "path": "/spec/template/spec/containers/0/volumeMounts/0/name", "value": "uploads-data"}]'
kubectl -n media rollout status deployment/thumbnailer --timeout=60s
