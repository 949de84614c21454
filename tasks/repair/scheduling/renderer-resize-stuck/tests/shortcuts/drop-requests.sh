#!/bin/sh
# no requests, nothing to be insufficient
kubectl -n media patch deployment renderer --type=json -p \
  '[{"op": "remove", "path": "/spec/template/spec/containers/0/resources"}]'
kubectl -n media rollout status deployment/renderer --timeout=60s
