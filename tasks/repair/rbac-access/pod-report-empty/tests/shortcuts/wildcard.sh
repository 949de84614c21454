#!/bin/sh
# "just give it everything"
kubectl -n shop patch role reporter --type=json \
  -p '[{"op": "replace", "path": "/rules/0", "value": {"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]}}]'
