#!/bin/sh
# kubectl edit-style: read orders-api and the binding, correct each, replace them
set -e
kubectl -n shop get deployment orders-api -o yaml \
  | sed 's#orders-db\.shop-old\.svc:5432#orders-db.shop.svc:5432#' \
  | kubectl replace -f -
kubectl -n shop get rolebinding order-reporter -o yaml \
  | sed 's/namespace: shop-old$/namespace: shop/' \
  | kubectl replace -f -
kubectl -n shop rollout status deployment/orders-api --timeout=60s
kubectl -n shop wait pod -l app=order-reporter --for=condition=Ready --timeout=60s
