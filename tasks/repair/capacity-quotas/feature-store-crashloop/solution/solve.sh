#!/bin/sh
set -e
# OOMKilled at a 128Mi limit the Deployment never set: the LimitRange default. The agreed
# size is in ConfigMap capacity-agreements.
kubectl -n ml patch deployment feature-store --type=json -p '[
  {"op": "add", "path": "/spec/template/spec/containers/0/resources",
   "value": {"requests": {"memory": "256Mi"}, "limits": {"memory": "512Mi"}}}]'
kubectl -n ml rollout status deployment/feature-store --timeout=90s
