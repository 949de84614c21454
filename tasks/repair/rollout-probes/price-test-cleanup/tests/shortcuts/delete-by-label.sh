#!/bin/sh
# everything the experiment made is labelled with it
kubectl -n pricing-lab delete deployments,services,jobs,configmaps -l experiment=price-test-b
