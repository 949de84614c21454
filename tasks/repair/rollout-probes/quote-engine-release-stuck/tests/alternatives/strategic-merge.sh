#!/bin/sh
# a strategic merge patch by container name: 5.1's start-up budget as 20 checks of 1 s, and
# readiness on the container port by number
set -e
kubectl -n quotes patch deployment quote-engine -p '{"spec": {"template": {"spec": {"containers": [
  {"name": "engine",
   "startupProbe": {"failureThreshold": 20},
   "readinessProbe": {"httpGet": {"port": 8080}}}]}}}}'
kubectl -n quotes rollout status deployment/quote-engine --timeout=120s
