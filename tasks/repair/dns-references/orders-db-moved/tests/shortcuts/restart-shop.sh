#!/bin/sh
# transient harm: fix the URL, then restart the shop's databases and apps from zero
kubectl -n shop set env deployment/orders DATABASE_URL=postgres://orders-db.data:5432/orders
kubectl -n shop patch deployment catalog-db -p '{"spec": {"replicas": 0}}'
kubectl -n shop patch deployment catalog-db -p '{"spec": {"replicas": 1}}'
kubectl -n shop rollout status deployment/catalog-db --timeout=60s
kubectl -n shop rollout status deployment/orders --timeout=60s
