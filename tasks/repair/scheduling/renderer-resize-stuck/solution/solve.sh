#!/bin/sh
set -e
# FailedScheduling: Insufficient cpu; the change-cause says 500m, the spec says 2500m
kubectl -n media patch deployment renderer --type=json -p \
  '[{"op": "replace", "path": "/spec/template/spec/containers/0/resources/requests/cpu", "value": "500m"}]'
kubectl -n media rollout status deployment/renderer --timeout=60s
