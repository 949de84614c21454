#!/bin/sh
# kubectl edit-style: read invoicing-overrides, add the key under data, replace it; restart
set -e
kubectl -n commerce get configmap invoicing-overrides -o yaml \
  | sed 's/^  INVOICE_PREFIX: INV-$/  INVOICE_PREFIX: INV-\n  PAYMENTS_API_VERSION: v2/' \
  | kubectl replace -f -
kubectl -n commerce rollout restart deployment/invoicing
kubectl -n commerce rollout status deployment/invoicing --timeout=60s
