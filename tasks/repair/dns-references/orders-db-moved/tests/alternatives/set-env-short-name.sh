#!/bin/sh
# point orders at the primary by its namespace-qualified short name
set -e
kubectl -n shop set env deployment/orders DATABASE_URL=postgres://orders-db.data:5432/orders
kubectl -n shop rollout status deployment/orders --timeout=60s
