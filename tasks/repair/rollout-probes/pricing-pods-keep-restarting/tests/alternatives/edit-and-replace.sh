#!/bin/sh
# what `kubectl edit` does: fetch the Deployment, fix the port, replace the object (fetching
# again if it changed in between, as edit asks you to)
set -e
ok=
for i in 1 2 3 4 5 6; do
  kubectl -n pricing get deployment pricing-api -o yaml | sed -e 's/port: 8081$/port: http/' > /tmp/pricing-api.yaml
  if kubectl -n pricing replace -f /tmp/pricing-api.yaml; then ok=1; break; fi
  sleep 1
done
[ -n "$ok" ]
kubectl -n pricing rollout status deployment/pricing-api --timeout=120s
