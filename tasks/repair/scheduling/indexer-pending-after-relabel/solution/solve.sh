#!/bin/sh
set -e
# FailedScheduling: 4 node(s) didn't match Pod's node affinity/selector; the nodes now say
# disk=ssd where the indexer asks for disktype=ssd
kubectl -n search patch deployment indexer --type=json -p \
  '[{"op": "replace", "path": "/spec/template/spec/nodeSelector", "value": {"disk": "ssd"}}]'
kubectl -n search rollout status deployment/indexer --timeout=60s
