#!/bin/sh
# everything labelled with the experiment except the winning variant's rules, which
# pricing-api still reads
set -e
kubectl -n pricing-lab delete deployments,services,jobs,configmaps -l 'experiment=price-test-b,variant!=b'
kubectl -n pricing-lab rollout status deployment/pricing-api --timeout=60s
