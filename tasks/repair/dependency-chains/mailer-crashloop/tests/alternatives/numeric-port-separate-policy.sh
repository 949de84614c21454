#!/bin/sh
# target the queue's port by number; allow the mailer to the queue in a policy of its own
set -e
kubectl -n mail patch service mail-queue --type=json -p \
  '[{"op": "replace", "path": "/spec/ports/0/targetPort", "value": 6379}]'
cat <<'YAML' | kubectl apply -f -
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: mailer-to-queue, namespace: mail}
spec:
  podSelector: {matchLabels: {app: mailer}}
  policyTypes: [Egress]
  egress:
  - to:
    - podSelector: {matchLabels: {app: mail-queue}}
    ports: [{port: 6379, protocol: TCP}]
YAML
kubectl -n mail rollout status deployment/mailer --timeout=120s
