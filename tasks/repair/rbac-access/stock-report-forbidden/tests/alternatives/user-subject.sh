#!/bin/sh
# bind the reporter by its username (a User subject named system:serviceaccount:shop:...),
# which the apiserver treats as the ServiceAccount itself
set -e
kubectl -n shop patch rolebinding stock-reporter --type=json -p \
  '[{"op": "replace", "path": "/subjects", "value": [{"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": "system:serviceaccount:shop:stock-reporter"}]}]'
kubectl -n shop rollout status deployment/stock-reporter --timeout=90s
