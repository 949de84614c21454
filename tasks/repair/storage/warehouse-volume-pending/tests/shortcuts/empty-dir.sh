#!/bin/sh
# forget the claim
kubectl -n analytics patch deployment warehouse --type=json -p \
  '[{"op": "replace", "path": "/spec/template/spec/volumes/0", "value": {"name": "data", "emptyDir": {}}}]'
kubectl -n analytics rollout status deployment/warehouse --timeout=90s
