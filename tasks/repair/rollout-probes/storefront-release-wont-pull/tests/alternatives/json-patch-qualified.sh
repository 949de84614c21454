#!/bin/sh
# a JSON patch of the image, written fully qualified (docker.io/acme/storefront:4.3.0)
set -e
kubectl -n web patch deployment storefront --type=json -p \
  '[{"op": "replace", "path": "/spec/template/spec/containers/0/image", "value": "docker.io/acme/storefront:4.3.0"}]'
kubectl -n web rollout status deployment/storefront --timeout=90s
