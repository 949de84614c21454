#!/bin/sh
set -e
# the reporter's logs say it cannot list (and then watch) pods
kubectl -n shop patch role reporter --type=json \
  -p '[{"op": "replace", "path": "/rules/0/verbs", "value": ["get", "list", "watch"]}]'
kubectl -n shop rollout status deployment/reporter --timeout=60s
