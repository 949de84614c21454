#!/bin/sh
# bridge through a temporary Service, fix the real one, then undo the bridge
kubectl -n warehouse expose deployment stock-api --name=stock-api-tmp --port=80 --target-port=8080
kubectl -n warehouse set env deployment/picker STOCK_API_URL=http://stock-api-tmp
kubectl -n warehouse rollout status deployment/picker --timeout=60s
kubectl -n warehouse patch service stock-api --type=json \
  -p '[{"op": "replace", "path": "/spec/ports/0/targetPort", "value": 8080}]'
kubectl -n warehouse set env deployment/picker STOCK_API_URL=http://stock-api
kubectl -n warehouse rollout status deployment/picker --timeout=60s
kubectl -n warehouse delete service stock-api-tmp
