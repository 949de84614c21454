#!/bin/sh
# re-point the variable with kubectl set env --from the existing Secret (POSTGRES_ + password)
set -e
kubectl -n inventory set env deployment/inventory-db --from=secret/db-credential --prefix=POSTGRES_
kubectl -n inventory rollout status deployment/inventory-db --timeout=60s
