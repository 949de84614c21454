#!/bin/sh
# fix the probe and bounce the Deployment through zero so no old pod lingers
kubectl -n catalog patch deployment catalog --type=json -p \
  '[{"op": "replace", "path": "/spec/template/spec/containers/0/readinessProbe/httpGet/path", "value": "/index.html"}]'
kubectl -n catalog patch deployment catalog --type=merge -p '{"spec": {"replicas": 0}}'
kubectl -n catalog patch deployment catalog --type=merge -p '{"spec": {"replicas": 2}}'
kubectl -n catalog rollout status deployment/catalog --timeout=90s
