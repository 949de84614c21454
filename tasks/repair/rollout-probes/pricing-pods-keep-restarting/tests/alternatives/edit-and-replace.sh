#!/bin/sh
# what `kubectl edit` does: fetch the Deployment, fix the port, replace the object
set -e
kubectl -n pricing get deployment pricing-api -o yaml \
  | sed -e 's/port: 8081$/port: http/' -e '/^  resourceVersion:/d' > /tmp/pricing-api.yaml
kubectl -n pricing replace -f /tmp/pricing-api.yaml
kubectl -n pricing rollout status deployment/pricing-api --timeout=120s
