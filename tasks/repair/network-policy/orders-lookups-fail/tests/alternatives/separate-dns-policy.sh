#!/bin/sh
# leave the lockdown policy alone and allow orders-api's DNS in a policy of its own
set -e
cat <<'YAML' | kubectl apply -f -
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: orders-api-dns, namespace: orders}
spec:
  podSelector: {matchLabels: {app: orders-api}}
  policyTypes: [Egress]
  egress:
  - to:
    - namespaceSelector: {}
      podSelector:
        matchExpressions: [{key: k8s-app, operator: In, values: [kube-dns]}]
    ports: [{port: 53, protocol: UDP}, {port: 53, protocol: TCP}]
YAML
kubectl -n orders wait pod -l app=orders-api --for=condition=Ready --timeout=60s
