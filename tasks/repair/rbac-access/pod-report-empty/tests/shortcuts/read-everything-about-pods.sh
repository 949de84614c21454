#!/bin/sh
# a "report" may as well read pod logs and events: grant the lot
kubectl -n shop patch role reporter --type=json \
  -p '[{"op": "replace", "path": "/rules/0", "value": {"apiGroups": [""], "resources": ["pods", "pods/log", "events"], "verbs": ["get", "list", "watch"]}}]'
kubectl -n shop rollout status deployment/reporter --timeout=60s
