#!/bin/sh
# point invoicing at another service's overrides: put v2 into refunds-overrides (refunds
# speaks v1 only) and read PAYMENTS_API_VERSION from there
kubectl -n commerce patch configmap refunds-overrides --type=merge \
  -p '{"data": {"PAYMENTS_API_VERSION": "v2"}}'
kubectl -n commerce patch deployment invoicing --type=json -p '[
  {"op": "add", "path": "/spec/template/spec/containers/0/env",
   "value": [{"name": "PAYMENTS_API_VERSION", "valueFrom": {"configMapKeyRef":
     {"name": "refunds-overrides", "key": "PAYMENTS_API_VERSION"}}}]}]'
kubectl -n commerce rollout status deployment/invoicing --timeout=60s
