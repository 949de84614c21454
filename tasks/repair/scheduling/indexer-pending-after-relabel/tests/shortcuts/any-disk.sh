#!/bin/sh
# select any node that has a disk label at all (HDD included)
kubectl -n search patch deployment indexer --type=json -p '[
  {"op": "remove", "path": "/spec/template/spec/nodeSelector"},
  {"op": "add", "path": "/spec/template/spec/affinity", "value": {"nodeAffinity": {
    "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
      {"matchExpressions": [{"key": "disk", "operator": "Exists"}]}]}}}}]'
kubectl -n search rollout status deployment/indexer --timeout=60s
