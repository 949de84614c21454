#!/bin/sh
# the Job and its pods first (waiting for them to go), then the script it mounted, then the
# losing variant from the outside in: Service, Deployment, its rules
set -e
kubectl -n pricing-lab delete job price-test-b-loadgen --cascade=foreground --wait=true
kubectl -n pricing-lab delete configmap price-test-b-loadgen-script
kubectl -n pricing-lab delete service pricing-api-variant-a
kubectl -n pricing-lab delete deployment pricing-api-variant-a --wait=true
kubectl -n pricing-lab delete configmap pricing-rules-a
kubectl -n pricing-lab rollout status deployment/pricing-api --timeout=60s
