#!/bin/sh
# rewrite the binding's subject list with a merge patch
set -e
kubectl -n shop patch rolebinding stock-reporter --type=merge -p \
  '{"subjects": [{"kind": "ServiceAccount", "name": "stock-reporter", "namespace": "shop"}]}'
kubectl -n shop rollout status deployment/stock-reporter --timeout=90s
