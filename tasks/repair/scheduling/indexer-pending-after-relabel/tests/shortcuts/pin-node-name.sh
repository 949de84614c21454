#!/bin/sh
# skip the scheduler: bind the pods straight to an SSD node
kubectl -n search patch deployment indexer --type=json -p '[
  {"op": "remove", "path": "/spec/template/spec/nodeSelector"},
  {"op": "add", "path": "/spec/template/spec/nodeName", "value": "fast-1"}]'
kubectl -n search rollout status deployment/indexer --timeout=60s
