#!/bin/sh
# strategic merge patch by container name, the request written as 0.5 CPU
set -e
kubectl -n media patch deployment renderer -p \
  '{"spec": {"template": {"spec": {"containers": [{"name": "renderer", "resources": {"requests": {"cpu": "0.5"}}}]}}}}'
kubectl -n media rollout status deployment/renderer --timeout=60s
