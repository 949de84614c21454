#!/bin/sh
set -e
# events: Liveness probe failed: ... dial tcp ...:8081: connect: connection refused; the
# container serves http on 8080 (its readiness probe uses the named port)
kubectl -n pricing patch deployment pricing-api --type=json -p \
  '[{"op": "replace", "path": "/spec/template/spec/containers/0/livenessProbe/httpGet/port", "value": "http"}]'
kubectl -n pricing rollout status deployment/pricing-api --timeout=90s
