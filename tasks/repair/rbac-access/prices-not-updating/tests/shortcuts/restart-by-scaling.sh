#!/bin/sh
# fix the Role, then bounce pricing so it loads the new rules right away
kubectl -n shop patch role pricing --type=json \
  -p '[{"op": "replace", "path": "/rules/0/resourceNames", "value": ["price-rules-2026"]}]'
kubectl -n shop patch deployment pricing --type=merge -p '{"spec": {"replicas": 0}}'
kubectl -n shop patch deployment pricing --type=merge -p '{"spec": {"replicas": 2}}'
kubectl -n shop rollout status deployment/pricing --timeout=60s
