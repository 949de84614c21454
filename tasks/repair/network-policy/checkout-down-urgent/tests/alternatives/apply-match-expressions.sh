#!/bin/sh
# apply the policy as corrected: checkout by matchExpressions, the port by its right name
set -e
cat <<'YAML' | kubectl apply -f -
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: orders-db-ingress, namespace: shop}
spec:
  podSelector: {matchLabels: {app: orders-db}}
  policyTypes: [Ingress]
  ingress:
  - from:
    - podSelector:
        matchExpressions: [{key: app, operator: In, values: [checkout]}]
    ports:
    - {protocol: TCP, port: postgres}
YAML
kubectl -n shop rollout status deployment/checkout --timeout=60s
kubectl -n shop wait pod -l app=checkout --for=condition=Ready --timeout=60s
