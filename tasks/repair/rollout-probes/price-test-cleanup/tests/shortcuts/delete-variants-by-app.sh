#!/bin/sh
# "the variant" is whatever pricing-api Deployment is not serving; clean up by label
kubectl -n pricing-lab delete deployments -l app=pricing-api --field-selector=metadata.name!=pricing-api
kubectl -n pricing-lab delete service pricing-api-variant-a
kubectl -n pricing-lab delete configmaps -l variant
kubectl -n pricing-lab delete job,configmap -l experiment=price-test-b
