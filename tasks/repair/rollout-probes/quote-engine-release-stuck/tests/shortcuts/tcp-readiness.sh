#!/bin/sh
# readiness only needs the engine to accept connections: probe the port, not /ready
kubectl -n quotes patch deployment quote-engine --type=json -p '[
  {"op": "replace", "path": "/spec/template/spec/containers/0/startupProbe/failureThreshold", "value": 10},
  {"op": "replace", "path": "/spec/template/spec/containers/0/startupProbe/periodSeconds", "value": 2},
  {"op": "replace", "path": "/spec/template/spec/containers/0/readinessProbe", "value": {"tcpSocket": {"port": "http-api"}, "periodSeconds": 2}}]'
kubectl -n quotes rollout status deployment/quote-engine --timeout=120s
