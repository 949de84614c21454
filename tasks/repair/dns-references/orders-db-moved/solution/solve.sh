#!/bin/sh
set -e
# orders logs: lookup orders-db ... no such host. The database now lives in `data`
# (the primary is the Service orders-db there; orders-db-replica is the read replica),
# and a short name only resolves within the client's own namespace.
kubectl -n shop set env deployment/orders DATABASE_URL=postgres://orders-db.data.svc.cluster.local:5432/orders
kubectl -n shop rollout status deployment/orders --timeout=60s
