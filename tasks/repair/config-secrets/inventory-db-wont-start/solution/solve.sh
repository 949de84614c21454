#!/bin/sh
set -e
# the pod waits with: secret "db-credentials" not found; the namespace has db-credential
kubectl -n inventory patch deployment inventory-db --type=json -p \
  '[{"op": "replace", "path": "/spec/template/spec/containers/0/env/0/valueFrom/secretKeyRef/name", "value": "db-credential"}]'
kubectl -n inventory rollout status deployment/inventory-db --timeout=60s
