#!/bin/sh
# kubectl edit-style: read the Deployment, project routes.yaml again, replace it
set -e
kubectl -n edge get deployment gateway -o yaml \
  | sed 's/- key: config.yaml$/- key: routes.yaml/' \
  | kubectl replace -f -
kubectl -n edge rollout status deployment/gateway --timeout=60s
