#!/bin/sh
# the URL through envFrom, from a ConfigMap that also slips in a second database URL (the read replica)
kubectl -n shop create configmap orders-settings \
  --from-literal=DATABASE_URL=postgres://orders-db.data:5432/orders \
  --from-literal=DATABASE_READ_URL=postgres://orders-db-replica.data:5432/orders
kubectl -n shop patch deployment orders --type=json -p '[{"op": "remove", "path": "/spec/template/spec/containers/0/env"}, {"op": "add", "path": "/spec/template/spec/containers/0/envFrom", "value": [{"configMapRef": {"name": "orders-settings"}}]}]'
kubectl -n shop rollout status deployment/orders --timeout=60s
