#!/bin/sh
# a private copy of the shared settings with v2, and point invoicing at it
set -e
kubectl -n commerce get configmap commerce-common -o jsonpath='{.data}' >/dev/null
kubectl -n commerce create configmap invoicing-common \
  --from-literal=PAYMENTS_API_URL=http://payments-gateway.payments.svc:8080 \
  --from-literal=PAYMENTS_API_VERSION=v2 --from-literal=LOG_FORMAT=json \
  --from-literal=REGION=eu-west-1
kubectl -n commerce patch deployment invoicing --type=json -p \
  '[{"op": "replace", "path": "/spec/template/spec/containers/0/envFrom/0/configMapRef/name", "value": "invoicing-common"}]'
kubectl -n commerce rollout status deployment/invoicing --timeout=60s
