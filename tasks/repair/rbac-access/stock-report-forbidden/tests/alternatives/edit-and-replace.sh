#!/bin/sh
# what `kubectl edit` does: fetch the binding, fix the subject's namespace, replace it
set -e
kubectl -n shop get rolebinding stock-reporter -o yaml | sed 's/namespace: staging/namespace: shop/' > /tmp/rb.yaml
kubectl -n shop replace -f /tmp/rb.yaml
kubectl -n shop rollout status deployment/stock-reporter --timeout=90s
