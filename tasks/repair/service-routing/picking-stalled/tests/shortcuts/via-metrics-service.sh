#!/bin/sh
# the metrics Service answers: send the pickers through it
kubectl -n warehouse set env deployment/picker STOCK_API_URL=http://stock-api-metrics:9090
kubectl -n warehouse rollout status deployment/picker --timeout=60s
