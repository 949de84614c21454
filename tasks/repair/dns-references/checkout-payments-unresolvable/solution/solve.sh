#!/bin/sh
set -e
# checkout logs: lookup payments-api.payments.svc.cluster ... no such host; the Service is
# payments-api in payments, whose full name ends in svc.cluster.local
kubectl -n shop patch configmap checkout-config --type=merge \
  -p '{"data": {"payments-url": "http://payments-api.payments.svc.cluster.local:8080"}}'
kubectl -n shop rollout restart deployment/checkout
kubectl -n shop rollout status deployment/checkout --timeout=60s
