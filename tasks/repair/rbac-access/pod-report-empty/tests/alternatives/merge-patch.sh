#!/bin/sh
# a merge patch that rewrites the rules, verbs in another order
set -e
kubectl -n shop patch role reporter --type=merge -p \
  '{"rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["list", "watch", "get"]}]}'
kubectl -n shop rollout status deployment/reporter --timeout=90s
