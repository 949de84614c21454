#!/bin/sh
set -e
# logs --previous: invoicing 3.0 speaks payments API v2 only; set PAYMENTS_API_VERSION=v2.
# commerce-common (v1) is read by orders and refunds too, which speak v1 only; every
# service reads <service>-overrides after it (the ConfigMap's annotation says so):
# override the key for invoicing alone, then restart it.
kubectl -n commerce patch configmap invoicing-overrides --type=merge \
  -p '{"data": {"PAYMENTS_API_VERSION": "v2"}}'
kubectl -n commerce rollout restart deployment/invoicing
kubectl -n commerce rollout status deployment/invoicing --timeout=60s
