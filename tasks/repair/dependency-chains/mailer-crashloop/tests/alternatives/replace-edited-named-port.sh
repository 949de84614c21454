#!/bin/sh
# kubectl edit-style replace of the Service; a queue rule naming the namespace and the port
set -e
kubectl -n mail get service mail-queue -o yaml \
  | sed 's/targetPort: resp$/targetPort: redis/' \
  | kubectl replace -f -
kubectl -n mail patch networkpolicy mailer-egress --type=json -p '[
  {"op": "add", "path": "/spec/egress/-", "value": {
    "to": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "mail"}},
            "podSelector": {"matchLabels": {"app": "mail-queue"}}}],
    "ports": [{"port": "redis", "protocol": "TCP"}]}}]'
kubectl -n mail rollout status deployment/mailer --timeout=120s
