#!/bin/sh
# the fix, and let the mailer reach anything in kube-system on any port (DNS "and friends")
kubectl -n mail patch service mail-queue --type=json -p '[{"op": "replace", "path": "/spec/ports/0/targetPort", "value": "redis"}]'
kubectl -n mail patch networkpolicy mailer-egress --type=json -p '[{"op": "add", "path": "/spec/egress/-", "value": {"to": [{"podSelector": {"matchLabels": {"app": "mail-queue"}}}], "ports": [{"port": 6379, "protocol": "TCP"}]}}, {"op": "add", "path": "/spec/egress/-", "value": {"to": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}}}]}}]'
kubectl -n mail rollout status deployment/mailer --timeout=120s
