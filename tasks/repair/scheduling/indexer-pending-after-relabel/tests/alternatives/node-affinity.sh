#!/bin/sh
# replace the stale nodeSelector with required node affinity on the new disk label
set -e
kubectl -n search patch deployment indexer --type=json -p '[
  {"op": "remove", "path": "/spec/template/spec/nodeSelector"},
  {"op": "add", "path": "/spec/template/spec/affinity", "value": {"nodeAffinity": {
    "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
      {"matchExpressions": [{"key": "disk", "operator": "In", "values": ["ssd"]}]}]}}}}]'
kubectl -n search rollout status deployment/indexer --timeout=60s
