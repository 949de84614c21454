#!/bin/sh
set -e
# events: Readiness probe failed: HTTP probe failed with statuscode: 404 on /health; the
# previous revision probed /index.html, a page this image serves
kubectl -n catalog patch deployment catalog --type=json -p \
  '[{"op": "replace", "path": "/spec/template/spec/containers/0/readinessProbe/httpGet/path", "value": "/index.html"}]'
kubectl -n catalog rollout status deployment/catalog --timeout=90s
