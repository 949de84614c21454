#!/bin/sh
# never kill a starting engine: a start-up budget of days, and follow the port rename
kubectl -n quotes patch deployment quote-engine --type=json -p '[
  {"op": "replace", "path": "/spec/template/spec/containers/0/startupProbe/failureThreshold", "value": 100000},
  {"op": "replace", "path": "/spec/template/spec/containers/0/readinessProbe/httpGet/port", "value": "http-api"}]'
kubectl -n quotes rollout status deployment/quote-engine --timeout=120s
