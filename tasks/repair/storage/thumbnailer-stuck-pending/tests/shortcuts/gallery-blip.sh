#!/bin/sh
# the right fix, plus a quick restart of the gallery by scaling it to zero and back
kubectl -n media patch deployment gallery -p '{"spec": {"replicas": 0}}'
kubectl -n media patch deployment thumbnailer --type=json -p \
  '[{"op": "replace", "path": "/spec/template/spec/volumes/0/persistentVolumeClaim/claimName", "value": "uploads"}]'
kubectl -n media patch deployment gallery -p '{"spec": {"replicas": 2}}'
kubectl -n media rollout status deployment/thumbnailer --timeout=60s
kubectl -n media rollout status deployment/gallery --timeout=60s
