#!/bin/sh
# put the override back with a JSON patch, then restart invoicing by deleting its pods
set -e
kubectl -n commerce patch configmap invoicing-overrides --type=json \
  -p '[{"op": "add", "path": "/data/PAYMENTS_API_VERSION", "value": "v2"}]'
kubectl -n commerce delete pod -l app=invoicing
kubectl -n commerce rollout status deployment/invoicing --timeout=60s
