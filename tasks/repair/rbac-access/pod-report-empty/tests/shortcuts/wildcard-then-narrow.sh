#!/bin/sh
# open everything until the reporter is up, then narrow the Role down to what it needs
kubectl -n shop patch role reporter --type=json \
  -p '[{"op": "replace", "path": "/rules/0", "value": {"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]}}]'
kubectl -n shop rollout status deployment/reporter --timeout=60s
kubectl -n shop patch role reporter --type=json \
  -p '[{"op": "replace", "path": "/rules/0", "value": {"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list", "watch"]}}]'
