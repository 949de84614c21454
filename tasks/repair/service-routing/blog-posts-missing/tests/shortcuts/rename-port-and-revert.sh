#!/bin/sh
# rename the pods' port to match the Service, fix the Service, then rename it back
kubectl -n blog patch deployment posts-api --type=json \
  -p '[{"op": "replace", "path": "/spec/template/spec/containers/0/ports/0/name", "value": "web"}]'
kubectl -n blog rollout status deployment/posts-api --timeout=60s
kubectl -n blog patch service posts-api --type=json \
  -p '[{"op": "replace", "path": "/spec/ports/0/targetPort", "value": "http"}]'
kubectl -n blog patch deployment posts-api --type=json \
  -p '[{"op": "replace", "path": "/spec/template/spec/containers/0/ports/0/name", "value": "http"}]'
kubectl -n blog rollout status deployment/posts-api --timeout=60s
kubectl -n blog rollout status deployment/frontend --timeout=60s
