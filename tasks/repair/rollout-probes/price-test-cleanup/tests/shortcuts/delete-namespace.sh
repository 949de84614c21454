#!/bin/sh
# the namespace was made for the experiment and the experiment is over
kubectl delete namespace pricing-lab --wait=false
