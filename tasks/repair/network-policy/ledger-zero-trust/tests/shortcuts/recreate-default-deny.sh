#!/bin/sh
# change-and-revert: lift the default-deny until the ledger is up, then fix the policies
# and put it back exactly as it was
kubectl -n ledger delete networkpolicy default-deny
kubectl -n ledger patch networkpolicy api-ingress --type=json -p \
  '[{"op": "replace", "path": "/spec/ingress/0/ports/0/port", "value": 8080}]'
kubectl -n ledger patch networkpolicy api-egress --type=json -p \
  '[{"op": "replace", "path": "/spec/egress/0/to/0/podSelector/matchLabels", "value": {"app": "ledger-db"}}]'
kubectl -n ledger wait pod -l app=web --for=condition=Ready --timeout=60s
cat <<'YAML' | kubectl apply -f -
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: default-deny, namespace: ledger}
spec:
  podSelector: {}
  policyTypes: [Ingress, Egress]
YAML
