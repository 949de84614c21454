#!/bin/sh
# clean up, then restart pricing-api's pods to prove it still starts without the leftovers
kubectl -n pricing-lab delete deployment/pricing-api-variant-a service/pricing-api-variant-a \
  configmap/pricing-rules-a job/price-test-b-loadgen configmap/price-test-b-loadgen-script
kubectl -n pricing-lab delete pods -l app=pricing-api
kubectl -n pricing-lab rollout status deployment/pricing-api --timeout=60s
