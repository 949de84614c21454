#!/bin/sh
# rewrite the whole readiness probe with a JSON patch, as the previous revision had it
# (defaults left to the apiserver)
set -e
kubectl -n catalog patch deployment catalog --type=json -p \
  '[{"op": "replace", "path": "/spec/template/spec/containers/0/readinessProbe", "value": {"httpGet": {"path": "/index.html", "port": "http"}, "periodSeconds": 2}}]'
kubectl -n catalog rollout status deployment/catalog --timeout=90s
