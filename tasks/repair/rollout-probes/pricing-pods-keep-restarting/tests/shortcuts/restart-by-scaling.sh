#!/bin/sh
# fix the port and clear the crash-looping pods by going through zero replicas
kubectl -n pricing patch deployment pricing-api --type=json -p \
  '[{"op": "replace", "path": "/spec/template/spec/containers/0/livenessProbe/httpGet/port", "value": "http"}]'
kubectl -n pricing patch deployment pricing-api --type=merge -p '{"spec": {"replicas": 0}}'
kubectl -n pricing patch deployment pricing-api --type=merge -p '{"spec": {"replicas": 2}}'
kubectl -n pricing rollout status deployment/pricing-api --timeout=90s
