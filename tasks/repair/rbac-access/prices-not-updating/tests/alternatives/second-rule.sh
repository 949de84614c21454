#!/bin/sh
# a second rule in the same Role, for the 2026 rules by name
set -e
kubectl -n shop patch role pricing --type=json -p \
  '[{"op": "add", "path": "/rules/-", "value": {"apiGroups": [""], "resources": ["configmaps"], "resourceNames": ["price-rules-2026"], "verbs": ["get"]}}]'
kubectl auth can-i get configmap/price-rules-2026 -n shop --as=system:serviceaccount:shop:pricing || true
