#!/bin/sh
set -e
# frontend logs: dial tcp posts-api:80 connection refused; the Service has no endpoints
# because its targetPort "web" names no port of the posts-api pods (they declare "http")
kubectl -n blog patch service posts-api --type=json \
  -p '[{"op": "replace", "path": "/spec/ports/0/targetPort", "value": "http"}]'
kubectl -n blog rollout status deployment/frontend --timeout=60s
