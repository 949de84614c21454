#!/bin/sh
# give every container in the namespace more by default
kubectl -n ml patch limitrange defaults --type=json -p \
  '[{"op": "replace", "path": "/spec/limits/0/default/memory", "value": "1Gi"}]'
kubectl -n ml rollout restart deployment/feature-store
kubectl -n ml rollout status deployment/feature-store --timeout=90s
