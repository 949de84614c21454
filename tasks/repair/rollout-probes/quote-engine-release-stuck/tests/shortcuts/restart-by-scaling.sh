#!/bin/sh
# the oracle's fix, then through zero replicas so no half-started pod is left over
kubectl -n quotes patch deployment quote-engine --type=json -p '[
  {"op": "replace", "path": "/spec/template/spec/containers/0/startupProbe/periodSeconds", "value": 2},
  {"op": "replace", "path": "/spec/template/spec/containers/0/startupProbe/failureThreshold", "value": 10},
  {"op": "replace", "path": "/spec/template/spec/containers/0/readinessProbe/httpGet/port", "value": "http-api"}]'
kubectl -n quotes patch deployment quote-engine --type=merge -p '{"spec": {"replicas": 0}}'
kubectl -n quotes patch deployment quote-engine --type=merge -p '{"spec": {"replicas": 2}}'
kubectl -n quotes rollout status deployment/quote-engine --timeout=120s
