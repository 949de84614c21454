#!/bin/sh
# the orders database has been migrated to the shared `data` namespace; once orders is
# up, the old copy in shop is decommissioned
set -e
kubectl -n shop rollout status deployment/orders --timeout=60s
kubectl -n data rollout status deployment/orders-db --timeout=60s
kubectl -n shop delete deployment orders-db
kubectl -n shop delete service orders-db
kubectl -n shop delete secret orders-db
