#!/bin/sh
# the tidy-up: "PAYMENTS_API_VERSION is already in commerce-common, drop the duplicate",
# then a restart of invoicing to pick the tidied config up
set -e
kubectl -n commerce rollout status deployment/invoicing --timeout=60s
kubectl -n commerce patch configmap invoicing-overrides --type=json \
  -p '[{"op": "remove", "path": "/data/PAYMENTS_API_VERSION"}]'
kubectl -n commerce delete pod -l app=invoicing --wait=false
