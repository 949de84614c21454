#!/bin/sh
# Friday: the test is called for B, the losing variant is scaled down, the rest is left
set -e
kubectl -n pricing-lab rollout status deployment/pricing-api-variant-a --timeout=60s
kubectl -n pricing-lab wait --for=condition=complete job/price-test-b-loadgen --timeout=60s
kubectl -n pricing-lab scale deployment pricing-api-variant-a --replicas=0
