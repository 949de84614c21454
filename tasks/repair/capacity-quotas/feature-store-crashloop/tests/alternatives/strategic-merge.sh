#!/bin/sh
# a strategic merge patch naming the container, the agreed sizes written in other units
set -e
kubectl -n ml patch deployment feature-store --type=strategic -p '
{"spec": {"template": {"spec": {"containers": [
  {"name": "feature-store",
   "resources": {"requests": {"memory": "268435456"}, "limits": {"memory": "0.5Gi"}}}]}}}}'
kubectl -n ml rollout status deployment/feature-store --timeout=90s
