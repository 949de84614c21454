#!/bin/sh
# back to the revision without the change
kubectl -n pricing rollout undo deployment/pricing-api
kubectl -n pricing rollout status deployment/pricing-api --timeout=90s
