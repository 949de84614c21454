#!/bin/sh
# the five leftovers by kind/name, in one kubectl delete
set -e
kubectl -n pricing-lab delete deployment/pricing-api-variant-a service/pricing-api-variant-a \
  configmap/pricing-rules-a job/price-test-b-loadgen configmap/price-test-b-loadgen-script
kubectl -n pricing-lab rollout status deployment/pricing-api --timeout=60s
