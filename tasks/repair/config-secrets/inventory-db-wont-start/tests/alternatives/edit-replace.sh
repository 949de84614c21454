#!/bin/sh
# kubectl edit-style: read the Deployment, correct the Secret's name, replace it
set -e
kubectl -n inventory get deployment inventory-db -o yaml \
  | sed 's/name: db-credentials$/name: db-credential/' \
  | kubectl replace -f -
kubectl -n inventory rollout status deployment/inventory-db --timeout=60s
