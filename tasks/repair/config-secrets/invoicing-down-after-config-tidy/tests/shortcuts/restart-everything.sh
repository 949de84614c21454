#!/bin/sh
# transient harm: the right override, then every pod in commerce deleted to pick config up
kubectl -n commerce patch configmap invoicing-overrides --type=merge \
  -p '{"data": {"PAYMENTS_API_VERSION": "v2"}}'
kubectl -n commerce delete pods --all --wait=false
kubectl -n commerce rollout status deployment/invoicing --timeout=60s
kubectl -n commerce rollout status deployment/orders --timeout=60s
