#!/bin/sh
# let the indexer run anywhere
kubectl -n search patch deployment indexer --type=json -p \
  '[{"op": "remove", "path": "/spec/template/spec/nodeSelector"}]'
kubectl -n search rollout status deployment/indexer --timeout=60s
