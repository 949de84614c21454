#!/bin/sh
# the 3.5 release: a new image, and the resources block lost in a manifest refactor
set -e
kubectl -n render rollout status deployment/render-worker --timeout=90s
kubectl -n render patch deployment render-worker --type=json -p \
  '[{"op": "replace", "path": "/spec/template/spec/containers/0/image", "value": "acme/render-worker:3.5"},
    {"op": "remove", "path": "/spec/template/spec/containers/0/resources"}]'
kubectl -n render rollout status deployment/render-worker --timeout=90s
