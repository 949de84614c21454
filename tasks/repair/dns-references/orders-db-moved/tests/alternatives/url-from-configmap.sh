#!/bin/sh
# keep the URL in a ConfigMap of its own and read it from there
set -e
kubectl -n shop create configmap orders-database \
  --from-literal=url=postgres://orders-db.data.svc.cluster.local:5432/orders
kubectl -n shop patch deployment orders --type=strategic -p '{"spec": {"template": {"spec": {
  "containers": [{"name": "api", "env": [{"name": "DATABASE_URL", "value": null,
    "valueFrom": {"configMapKeyRef": {"name": "orders-database", "key": "url"}}}]}]}}}}'
kubectl -n shop rollout status deployment/orders --timeout=60s
