#!/bin/sh
# make the pods match the Service instead of the other way round
kubectl -n blog patch deployment posts-api --type=json \
  -p '[{"op": "replace", "path": "/spec/template/spec/containers/0/ports/0/name", "value": "web"}]'
kubectl -n blog rollout status deployment/posts-api --timeout=60s
