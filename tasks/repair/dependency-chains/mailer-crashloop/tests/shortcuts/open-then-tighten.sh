#!/bin/sh
# change-and-revert: let the mailer out to anything until it is up, then put the rules
# back with the queue rule added
kubectl -n mail patch service mail-queue --type=json -p \
  '[{"op": "replace", "path": "/spec/ports/0/targetPort", "value": "redis"}]'
kubectl -n mail patch networkpolicy mailer-egress --type=json -p \
  '[{"op": "add", "path": "/spec/policyTypes", "value": ["Ingress"]}]'
kubectl -n mail rollout status deployment/mailer --timeout=120s
kubectl -n mail patch networkpolicy mailer-egress --type=json -p '[
  {"op": "replace", "path": "/spec/policyTypes", "value": ["Egress"]},
  {"op": "add", "path": "/spec/egress/-", "value": {
    "to": [{"podSelector": {"matchLabels": {"app": "mail-queue"}}}],
    "ports": [{"port": 6379, "protocol": "TCP"}]}}]'
kubectl -n mail rollout status deployment/mailer --timeout=120s
