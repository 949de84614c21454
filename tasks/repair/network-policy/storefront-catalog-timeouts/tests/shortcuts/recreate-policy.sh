#!/bin/sh
# change-and-revert: drop the policy until the storefront is up, then put it back fixed
kubectl -n shop delete networkpolicy catalog-ingress
kubectl -n shop wait pod -l app=storefront --for=condition=Ready --timeout=60s
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
    ports: [{port: 8080, protocol: TCP}]
YAML
