#!/bin/sh
set -e
# picker logs: dial tcp stock-api:80 connection refused; the Service has ready endpoints
# but forwards to 8081, and the stock-api 2.0 pods listen on 8080 (containerPort http)
kubectl -n warehouse patch service stock-api --type=json \
  -p '[{"op": "replace", "path": "/spec/ports/0/targetPort", "value": 8080}]'
kubectl -n warehouse rollout status deployment/picker --timeout=60s
