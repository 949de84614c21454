#!/bin/sh
# change-and-revert: v2 in the shared ConfigMap until invoicing has restarted, then back to v1
kubectl -n commerce patch configmap commerce-common --type=merge \
  -p '{"data": {"PAYMENTS_API_VERSION": "v2"}}'
kubectl -n commerce rollout restart deployment/invoicing
kubectl -n commerce rollout status deployment/invoicing --timeout=60s
kubectl -n commerce patch configmap commerce-common --type=merge \
  -p '{"data": {"PAYMENTS_API_VERSION": "v1"}}'
