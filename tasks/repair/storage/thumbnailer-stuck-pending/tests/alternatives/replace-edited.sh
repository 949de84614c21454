#!/bin/sh
# kubectl edit-style: read the Deployment, correct the claim name, replace it
set -e
kubectl -n media get deployment thumbnailer -o yaml \
  | sed 's/claimName: upload$/claimName: uploads/' \
  | kubectl replace -f -
kubectl -n media rollout status deployment/thumbnailer --timeout=60s
