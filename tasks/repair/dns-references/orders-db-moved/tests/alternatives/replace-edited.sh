#!/bin/sh
# kubectl edit-style: read the Deployment, qualify the host with .data.svc, replace it
set -e
kubectl -n shop get deployment orders -o yaml \
  | sed 's#postgres://orders-db:5432/orders#postgres://orders-db.data.svc:5432/orders#' \
  | kubectl replace -f -
kubectl -n shop rollout status deployment/orders --timeout=60s
