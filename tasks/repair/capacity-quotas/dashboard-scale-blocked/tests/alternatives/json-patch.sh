#!/bin/sh
# set the quota's pod count to the approved 10 with a JSON patch (a number, not a string)
set -e
kubectl -n analytics patch resourcequota compute --type=json \
  -p '[{"op": "replace", "path": "/spec/hard/pods", "value": 10}]'
kubectl -n analytics rollout status deployment/dashboard --timeout=90s
