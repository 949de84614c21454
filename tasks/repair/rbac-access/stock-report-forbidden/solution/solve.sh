#!/bin/sh
set -e
# reporter logs: User "system:serviceaccount:shop:stock-reporter" cannot list pods; the
# Role allows it, but the RoleBinding's subject is the stock-reporter of `staging`
kubectl -n shop patch rolebinding stock-reporter --type=json \
  -p '[{"op": "replace", "path": "/subjects/0/namespace", "value": "shop"}]'
kubectl -n shop rollout status deployment/stock-reporter --timeout=60s
