#!/bin/sh
set -e
# the scheduler's event names the taint the pods do not tolerate: {dedicated: ledger}
kubectl -n finance patch deployment ledger --type=json -p \
  '[{"op": "replace", "path": "/spec/template/spec/tolerations/0/value", "value": "ledger"}]'
kubectl -n finance rollout status deployment/ledger --timeout=60s
