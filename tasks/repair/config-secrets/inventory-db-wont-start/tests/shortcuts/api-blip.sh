#!/bin/sh
# transient harm: the right fix, and the API restarted by scaling it to 0 and back to reconnect
kubectl -n inventory patch deployment inventory-db --type=json -p \
  '[{"op": "replace", "path": "/spec/template/spec/containers/0/env/0/valueFrom/secretKeyRef/name", "value": "db-credential"}]'
kubectl -n inventory rollout status deployment/inventory-db --timeout=60s
kubectl -n inventory patch deployment inventory-api -p '{"spec": {"replicas": 0}}'
sleep 1
kubectl -n inventory patch deployment inventory-api -p '{"spec": {"replicas": 1}}'
kubectl -n inventory rollout status deployment/inventory-api --timeout=60s
