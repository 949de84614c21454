#!/bin/sh
# kubectl edit-style: read the Service, correct the target port, replace it
set -e
kubectl -n warehouse get service stock-api -o yaml \
  | sed 's/targetPort: 8081/targetPort: 8080/' \
  | kubectl replace -f -
kubectl -n warehouse rollout status deployment/picker --timeout=60s
