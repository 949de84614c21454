#!/bin/sh
set -e
# events: configmaps "price-rules-2026" is forbidden for shop:pricing; pricing now reads
# price-rules-2026 (RULES_CONFIGMAP), the Role names only price-rules-2025
kubectl -n shop patch role pricing --type=json \
  -p '[{"op": "replace", "path": "/rules/0/resourceNames", "value": ["price-rules-2026"]}]'
kubectl auth can-i get configmap/price-rules-2026 -n shop --as=system:serviceaccount:shop:pricing || true
