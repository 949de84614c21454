#!/bin/sh
# target the pods' port by its name, http
set -e
kubectl -n warehouse patch service stock-api --type=json \
  -p '[{"op": "replace", "path": "/spec/ports/0/targetPort", "value": "http"}]'
kubectl -n warehouse rollout status deployment/picker --timeout=60s
