#!/bin/sh
# leave the existing rule alone and append a second rule granting list and watch on pods
set -e
kubectl -n shop patch role reporter --type=json -p \
  '[{"op": "add", "path": "/rules/-", "value": {"apiGroups": [""], "resources": ["pods"], "verbs": ["list", "watch"]}}]'
kubectl -n shop rollout status deployment/reporter --timeout=90s
