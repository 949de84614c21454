#!/bin/sh
# apply the policy with a DNS rule first (kube-system by its name label), the database
# rule kept as it was
set -e
cat <<'YAML' | kubectl apply -f -
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: orders-api-egress, namespace: orders}
spec:
  podSelector: {matchLabels: {app: orders-api}}
  policyTypes: [Egress]
  egress:
  - to:
    - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: kube-system}}
    ports: [{port: 53, protocol: UDP}, {port: 53, protocol: TCP}]
  - to:
    - podSelector: {matchLabels: {app: orders-db}}
    ports: [{port: 5432, protocol: TCP}]
YAML
kubectl -n orders wait pod -l app=orders-api --for=condition=Ready --timeout=60s
