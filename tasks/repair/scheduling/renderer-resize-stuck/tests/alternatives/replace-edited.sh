#!/bin/sh
# kubectl edit-style: read the Deployment, correct the CPU request, replace it
set -e
kubectl -n media get deployment renderer -o yaml \
  | sed 's/cpu: 2500m/cpu: 500m/' \
  | kubectl replace -f -
kubectl -n media rollout status deployment/renderer --timeout=60s
