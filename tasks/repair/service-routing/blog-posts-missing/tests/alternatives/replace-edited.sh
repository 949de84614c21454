#!/bin/sh
# kubectl edit-style: read the Service, correct the target port name, replace it
set -e
kubectl -n blog get service posts-api -o yaml \
  | sed 's/targetPort: web/targetPort: http/' \
  | kubectl replace -f -
kubectl -n blog rollout status deployment/frontend --timeout=60s
