#!/bin/sh
# put the right URL straight into the Deployment
kubectl -n shop set env deployment/checkout PAYMENTS_URL=http://payments-api.payments:8080
kubectl -n shop rollout status deployment/checkout --timeout=60s
