#!/bin/sh
# the fix, then "harden" the namespace with a default-deny egress policy for every pod (the relay can no longer send mail out)
kubectl -n mail patch service mail-queue --type=json -p '[{"op": "replace", "path": "/spec/ports/0/targetPort", "value": "redis"}]'
kubectl -n mail patch networkpolicy mailer-egress --type=json -p '[{"op": "add", "path": "/spec/egress/-", "value": {"to": [{"podSelector": {"matchLabels": {"app": "mail-queue"}}}], "ports": [{"port": 6379, "protocol": "TCP"}]}}]'
cat <<'YAML' | kubectl -n mail apply -f -
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: default-deny-egress, namespace: mail}
spec:
  podSelector: {}
  policyTypes: [Egress]
YAML
kubectl -n mail rollout status deployment/mailer --timeout=120s
