#!/bin/sh
# transient harm: fix the rule, then restart the catalog from zero so it takes it up
kubectl -n shop patch networkpolicy catalog-ingress --type=json -p \
  '[{"op": "replace", "path": "/spec/ingress/0/from/0/podSelector/matchLabels/tier", "value": "frontend"}]'
kubectl -n shop patch deployment catalog -p '{"spec": {"replicas": 0}}'
kubectl -n shop patch deployment catalog -p '{"spec": {"replicas": 2}}'
kubectl -n shop rollout status deployment/catalog --timeout=60s
kubectl -n shop wait pod -l app=storefront --for=condition=Ready --timeout=60s
