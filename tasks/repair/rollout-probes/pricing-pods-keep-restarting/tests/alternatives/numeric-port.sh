#!/bin/sh
# a strategic merge patch by container name: point the liveness check at the port the API
# listens on, by number
set -e
kubectl -n pricing patch deployment pricing-api -p \
  '{"spec": {"template": {"spec": {"containers": [{"name": "api", "livenessProbe": {"httpGet": {"port": 8080}}}]}}}}'
kubectl -n pricing rollout status deployment/pricing-api --timeout=120s
