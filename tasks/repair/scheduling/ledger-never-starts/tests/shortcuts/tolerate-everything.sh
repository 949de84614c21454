#!/bin/sh
# a blanket toleration: tolerate every taint there is
kubectl -n finance patch deployment ledger --type=json -p '[
  {"op": "replace", "path": "/spec/template/spec/tolerations", "value": [{"operator": "Exists"}]}]'
kubectl -n finance rollout status deployment/ledger --timeout=60s
