#!/bin/sh
# wait out the 6 s of loading before the start-up checks begin (6 s + 10 x 1 s, inside 5.1's
# 20 s), and probe readiness on the renamed port
set -e
kubectl -n quotes patch deployment quote-engine --type=json -p '[
  {"op": "add", "path": "/spec/template/spec/containers/0/startupProbe/initialDelaySeconds", "value": 6},
  {"op": "replace", "path": "/spec/template/spec/containers/0/startupProbe/failureThreshold", "value": 10},
  {"op": "replace", "path": "/spec/template/spec/containers/0/readinessProbe/httpGet/port", "value": "http-api"}]'
kubectl -n quotes rollout status deployment/quote-engine --timeout=120s
