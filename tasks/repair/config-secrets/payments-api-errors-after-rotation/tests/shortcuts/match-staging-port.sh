#!/bin/sh
# staging works on 5433, so make production's database Service listen there too
kubectl -n payments patch service payments-db --type=json \
  -p '[{"op": "replace", "path": "/spec/ports/0/port", "value": 5433}]'
kubectl -n payments rollout status deployment/payments-api --timeout=60s
