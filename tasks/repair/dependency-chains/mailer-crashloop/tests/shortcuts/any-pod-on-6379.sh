#!/bin/sh
# an over-broad grant: let the mailer reach redis on any pod of the namespace
kubectl -n mail patch service mail-queue --type=json -p \
  '[{"op": "replace", "path": "/spec/ports/0/targetPort", "value": "redis"}]'
kubectl -n mail patch networkpolicy mailer-egress --type=json -p '[
  {"op": "add", "path": "/spec/egress/-", "value": {
    "to": [{"podSelector": {}}], "ports": [{"port": 6379, "protocol": "TCP"}]}}]'
kubectl -n mail rollout status deployment/mailer --timeout=120s
