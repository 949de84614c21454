#!/bin/sh
# utilization needs requests; an absolute target does not
kubectl -n render patch hpa render-worker --type=json -p \
  '[{"op": "replace", "path": "/spec/metrics/0/resource/target",
     "value": {"type": "AverageValue", "averageValue": "200m"}}]'
