#!/bin/sh
# give the storefront the label the policy wants
kubectl -n shop patch deployment storefront --type=json -p \
  '[{"op": "replace", "path": "/spec/template/metadata/labels/tier", "value": "web"}]'
kubectl -n shop rollout status deployment/storefront --timeout=60s
