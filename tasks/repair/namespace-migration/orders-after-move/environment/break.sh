#!/bin/sh
# cut-over day: the old orders database is switched off
set -e
kubectl -n shop rollout status deployment/orders-api --timeout=60s
kubectl -n shop-old scale deployment orders-db --replicas=0
kubectl -n shop-old rollout status deployment/orders-db --timeout=60s
