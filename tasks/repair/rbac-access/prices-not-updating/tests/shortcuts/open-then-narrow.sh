#!/bin/sh
# let pricing read every ConfigMap while it reloads, then narrow the Role to the 2026 rules
kubectl -n shop patch role pricing --type=json \
  -p '[{"op": "replace", "path": "/rules/0", "value": {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list", "watch"]}}]'
kubectl -n shop rollout restart deployment/pricing
kubectl -n shop rollout status deployment/pricing --timeout=60s
kubectl -n shop patch role pricing --type=json \
  -p '[{"op": "replace", "path": "/rules/0", "value": {"apiGroups": [""], "resources": ["configmaps"], "resourceNames": ["price-rules-2026"], "verbs": ["get"]}}]'
