#!/bin/sh
# fix the CPU, but put the thread count back to what ran before
kubectl -n media patch deployment renderer --type=json -p '[
  {"op": "replace", "path": "/spec/template/spec/containers/0/resources/requests/cpu", "value": "500m"},
  {"op": "replace", "path": "/spec/template/spec/containers/0/env/0/value", "value": "2"}]'
kubectl -n media rollout status deployment/renderer --timeout=60s
