#!/bin/sh
# what `kubectl edit` does: fetch the Role, change the name it allows, replace it
set -e
kubectl -n shop get role pricing -o yaml | sed 's/price-rules-2025/price-rules-2026/' > /tmp/role.yaml
kubectl -n shop replace -f /tmp/role.yaml
kubectl auth can-i get configmap/price-rules-2026 -n shop --as=system:serviceaccount:shop:pricing || true
