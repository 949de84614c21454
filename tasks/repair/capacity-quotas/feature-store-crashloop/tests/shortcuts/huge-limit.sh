#!/bin/sh
# more than it could ever need
kubectl -n ml patch deployment feature-store --type=json -p '[
  {"op": "add", "path": "/spec/template/spec/containers/0/resources",
   "value": {"requests": {"memory": "1Gi"}, "limits": {"memory": "8Gi"}}}]'
kubectl -n ml rollout status deployment/feature-store --timeout=90s
