#!/bin/sh
# apply the policy as corrected, the catalog's port by its name
set -e
cat <<'YAML' | kubectl apply -f -
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: catalog-ingress, namespace: shop}
spec:
  podSelector: {matchLabels: {app: catalog}}
  policyTypes: [Ingress]
  ingress:
  - from:
    - podSelector: {matchLabels: {app: storefront, tier: frontend}}
    ports: [{port: http, protocol: TCP}]
YAML
kubectl -n shop wait pod -l app=storefront --for=condition=Ready --timeout=60s
