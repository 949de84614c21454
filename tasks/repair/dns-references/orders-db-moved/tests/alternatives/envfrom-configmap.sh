#!/bin/sh
# keep the database settings in a ConfigMap of its own and load it with envFrom (the literal entry removed)
set -e
kubectl -n shop create configmap orders-settings --from-literal=DATABASE_URL=postgres://orders-db.data.svc.cluster.local:5432/orders
kubectl -n shop patch deployment orders --type=json -p '[{"op": "remove", "path": "/spec/template/spec/containers/0/env"}, {"op": "add", "path": "/spec/template/spec/containers/0/envFrom", "value": [{"configMapRef": {"name": "orders-settings"}}]}]'
kubectl -n shop rollout status deployment/orders --timeout=60s
