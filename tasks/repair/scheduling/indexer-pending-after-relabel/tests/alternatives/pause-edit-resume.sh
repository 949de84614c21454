#!/bin/sh
# pause the rollout, swap the selector for node affinity in two edits, resume once
set -e
kubectl -n search rollout pause deployment/indexer
kubectl -n search patch deployment indexer --type=json -p \
  '[{"op": "remove", "path": "/spec/template/spec/nodeSelector"}]'
kubectl -n search patch deployment indexer --type=merge -p '{"spec": {"template": {"spec": {"affinity":
  {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms":
    [{"matchExpressions": [{"key": "disk", "operator": "In", "values": ["ssd"]}]}]}}}}}}}'
kubectl -n search rollout resume deployment/indexer
kubectl -n search rollout status deployment/indexer --timeout=60s
