#!/bin/sh
# leave the broken policy, add one beside it that lets checkout in on 5432
cat <<'YAML' | kubectl -n shop apply -f -
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: hotfix-checkout-to-db, namespace: shop}
spec:
  podSelector: {matchLabels: {app: orders-db}}
  policyTypes: [Ingress]
  ingress:
  - from:
    - podSelector: {matchLabels: {app: checkout}}
    ports:
    - {protocol: TCP, port: 5432}
YAML
kubectl -n shop rollout status deployment/checkout --timeout=60s
