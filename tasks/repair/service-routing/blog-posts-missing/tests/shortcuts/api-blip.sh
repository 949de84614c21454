#!/bin/sh
# the right fix, plus a quick restart of posts-api by scaling it to zero and back
kubectl -n blog patch deployment posts-api -p '{"spec": {"replicas": 0}}'
kubectl -n blog patch service posts-api --type=json \
  -p '[{"op": "replace", "path": "/spec/ports/0/targetPort", "value": "http"}]'
kubectl -n blog patch deployment posts-api -p '{"spec": {"replicas": 2}}'
kubectl -n blog rollout status deployment/posts-api --timeout=60s
kubectl -n blog rollout status deployment/frontend --timeout=60s
