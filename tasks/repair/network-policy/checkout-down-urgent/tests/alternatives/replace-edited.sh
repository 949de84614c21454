#!/bin/sh
# kubectl edit-style: read the policy, name the right port, replace it
set -e
kubectl -n shop get networkpolicy orders-db-ingress -o yaml \
  | sed 's/port: postgresql$/port: postgres/' \
  | kubectl replace -f -
kubectl -n shop rollout status deployment/checkout --timeout=60s
kubectl -n shop wait pod -l app=checkout --for=condition=Ready --timeout=60s
