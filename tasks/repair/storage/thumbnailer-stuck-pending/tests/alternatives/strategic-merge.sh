#!/bin/sh
# strategic merge patch of the volume by its name
set -e
kubectl -n media patch deployment thumbnailer -p \
  '{"spec": {"template": {"spec": {"volumes": [{"name": "uploads", "persistentVolumeClaim": {"claimName": "uploads"}}]}}}}'
kubectl -n media rollout status deployment/thumbnailer --timeout=60s
