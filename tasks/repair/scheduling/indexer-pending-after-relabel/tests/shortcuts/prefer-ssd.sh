#!/bin/sh
# a soft preference for SSD instead of a requirement: the pods may land on HDD nodes
kubectl -n search patch deployment indexer --type=json -p '[
  {"op": "remove", "path": "/spec/template/spec/nodeSelector"},
  {"op": "add", "path": "/spec/template/spec/affinity", "value": {"nodeAffinity": {
    "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 100, "preference":
      {"matchExpressions": [{"key": "disk", "operator": "In", "values": ["ssd"]}]}}]}}}]'
kubectl -n search rollout status deployment/indexer --timeout=60s
