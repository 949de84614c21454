#!/bin/sh
# change-and-revert: raise the namespace default, restart so the pods are admitted with it,
# then put the default back (the pods keep their 1Gi limit)
kubectl -n ml patch limitrange defaults --type=json -p \
  '[{"op": "replace", "path": "/spec/limits/0/default/memory", "value": "1Gi"}]'
kubectl -n ml rollout restart deployment/feature-store
kubectl -n ml rollout status deployment/feature-store --timeout=90s
kubectl -n ml patch limitrange defaults --type=json -p \
  '[{"op": "replace", "path": "/spec/limits/0/default/memory", "value": "128Mi"}]'
