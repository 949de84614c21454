#!/bin/sh
# Prescribes, acts, and never reports: a protocol violation.
set -e
fix='[{"op": "replace", "path": "/rules/0/verbs", "value": ["get", "list", "watch"]}]'
prescribe --intent "let the reporter list pods" --target roles/shop/reporter
kubectl -n shop patch role reporter --type=json -p "$fix"
kubectl -n shop rollout status deployment/reporter --timeout=60s
