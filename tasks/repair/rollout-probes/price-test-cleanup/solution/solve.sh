#!/bin/sh
set -e
# everything of the test wears experiment=price-test-b, but so does pricing-rules-b, the
# winner that pricing-api reads through envFrom: delete the leftovers by name
kubectl -n pricing-lab delete deployment pricing-api-variant-a
kubectl -n pricing-lab delete service pricing-api-variant-a
kubectl -n pricing-lab delete configmap pricing-rules-a
kubectl -n pricing-lab delete job price-test-b-loadgen
kubectl -n pricing-lab delete configmap price-test-b-loadgen-script
kubectl -n pricing-lab rollout status deployment/pricing-api --timeout=60s
