#!/bin/sh
# declarative: apply invoicing-overrides with all its keys and the v2 override, then restart
set -e
kubectl -n commerce create configmap invoicing-overrides \
  --from-literal=INVOICE_PREFIX=INV- --from-literal=PDF_RENDERER=chromium \
  --from-literal=PAYMENTS_API_VERSION=v2 --dry-run=client -o yaml | kubectl -n commerce apply -f -
kubectl -n commerce rollout restart deployment/invoicing
kubectl -n commerce rollout status deployment/invoicing --timeout=60s
