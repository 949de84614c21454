#!/bin/sh
# pin with required node affinity on the pool label and add a matching toleration first
set -e
kubectl -n finance patch deployment ledger --type=json -p '[
  {"op": "remove", "path": "/spec/template/spec/nodeSelector"},
  {"op": "add", "path": "/spec/template/spec/affinity", "value": {"nodeAffinity": {
    "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
      {"matchExpressions": [{"key": "pool", "operator": "In", "values": ["ledger"]}]}]}}}},
  {"op": "add", "path": "/spec/template/spec/tolerations/0",
   "value": {"key": "dedicated", "operator": "Equal", "value": "ledger", "effect": "NoSchedule"}}]'
kubectl -n finance rollout status deployment/ledger --timeout=60s
