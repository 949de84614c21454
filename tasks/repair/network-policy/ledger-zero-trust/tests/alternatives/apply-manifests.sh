#!/bin/sh
# apply both policies as corrected manifests; the database selected by its data tier
set -e
cat <<'YAML' | kubectl apply -f -
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: api-ingress, namespace: ledger}
spec:
  podSelector: {matchLabels: {app: api}}
  policyTypes: [Ingress]
  ingress:
  - from:
    - podSelector: {matchLabels: {app: web}}
    ports: [{port: 8080, protocol: TCP}]
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: api-egress, namespace: ledger}
spec:
  podSelector: {matchLabels: {app: api}}
  policyTypes: [Egress]
  egress:
  - to:
    - podSelector: {matchLabels: {app: ledger-db, tier: data}}
    ports: [{port: 5432, protocol: TCP}]
YAML
kubectl -n ledger wait pod -l app=api --for=condition=Ready --timeout=60s
kubectl -n ledger wait pod -l app=web --for=condition=Ready --timeout=60s
