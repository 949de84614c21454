#!/bin/sh
# a strategic merge patch naming the container (no list positions), requests only as 3.4 had
set -e
kubectl -n render patch deployment render-worker --type=strategic -p '
{"spec": {"template": {"spec": {"containers": [
  {"name": "worker", "resources": {"requests": {"cpu": "0.25", "memory": "256Mi"}}}]}}}}'
kubectl -n render rollout status deployment/render-worker --timeout=90s
# the autoscaler picks the new pods' metrics up within a few syncs
kubectl -n render wait hpa/render-worker --for=condition=ScalingActive=True --timeout=90s
