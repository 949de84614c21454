#!/bin/sh
# a fresh queue Service, and the egress rule
kubectl -n mail delete service mail-queue
kubectl -n mail expose deployment mail-queue --port=6379 --target-port=redis
kubectl -n mail patch networkpolicy mailer-egress --type=json -p '[
  {"op": "add", "path": "/spec/egress/-", "value": {
    "to": [{"podSelector": {"matchLabels": {"app": "mail-queue"}}}],
    "ports": [{"port": 6379, "protocol": "TCP"}]}}]'
