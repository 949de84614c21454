#!/bin/sh
# DNS to kube-system (namespace selector only) on port 53, in a policy of its own
set -e
cat <<'YAML' | kubectl -n orders apply -f -
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: orders-api-dns, namespace: orders}
spec:
  podSelector: {matchLabels: {app: orders-api}}
  policyTypes: [Egress]
  egress:
  - to: [{namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: kube-system}}}]
    ports: [{port: 53, protocol: UDP}, {port: 53, protocol: TCP}]
YAML
kubectl -n orders wait pod -l app=orders-api --for=condition=Ready --timeout=60s
