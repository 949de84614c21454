#!/bin/sh
# the right fix, plus a quick restart of reports by scaling it to zero and back
kubectl -n finance patch deployment reports -p '{"spec": {"replicas": 0}}'
kubectl -n finance patch deployment ledger --type=json -p \
  '[{"op": "replace", "path": "/spec/template/spec/tolerations/0/value", "value": "ledger"}]'
kubectl -n finance patch deployment reports -p '{"spec": {"replicas": 2}}'
kubectl -n finance rollout status deployment/ledger --timeout=60s
kubectl -n finance rollout status deployment/reports --timeout=60s
