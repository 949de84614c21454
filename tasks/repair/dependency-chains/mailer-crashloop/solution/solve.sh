#!/bin/sh
set -e
# mailer logs (--previous): dial tcp mail-queue:6379 connection refused: the Service's
# targetPort "resp" names no port of the redis pods (theirs is "redis"), so no endpoints.
kubectl -n mail patch service mail-queue --type=json -p \
  '[{"op": "replace", "path": "/spec/ports/0/targetPort", "value": "redis"}]'
# then i/o timeout: mailer-egress allows DNS and the relay but not the queue.
kubectl -n mail patch networkpolicy mailer-egress --type=json -p '[
  {"op": "add", "path": "/spec/egress/-", "value": {
    "to": [{"podSelector": {"matchLabels": {"app": "mail-queue"}}}],
    "ports": [{"port": 6379, "protocol": "TCP"}]}}]'
kubectl -n mail rollout status deployment/mailer --timeout=120s
