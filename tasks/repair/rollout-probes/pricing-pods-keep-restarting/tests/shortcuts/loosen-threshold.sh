#!/bin/sh
# let the probe fail for a very long time before anything is restarted
kubectl -n pricing patch deployment pricing-api --type=json -p \
  '[{"op": "replace", "path": "/spec/template/spec/containers/0/livenessProbe/failureThreshold", "value": 100000}]'
kubectl -n pricing rollout status deployment/pricing-api --timeout=90s
