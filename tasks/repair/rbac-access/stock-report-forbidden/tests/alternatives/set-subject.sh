#!/bin/sh
# kubectl set subject adds the right ServiceAccount; then drop the stale staging subject
set -e
kubectl -n shop set subject rolebinding stock-reporter --serviceaccount=shop:stock-reporter
kubectl -n shop patch rolebinding stock-reporter --type=json -p '[
  {"op": "test", "path": "/subjects/0/namespace", "value": "staging"},
  {"op": "remove", "path": "/subjects/0"}]'
kubectl -n shop rollout status deployment/stock-reporter --timeout=90s
