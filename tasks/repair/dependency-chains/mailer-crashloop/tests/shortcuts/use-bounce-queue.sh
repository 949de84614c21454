#!/bin/sh
# the bounce queue works: consume from there, with a rule to reach it
kubectl -n mail set env deployment/mailer QUEUE_URL=redis://bounce-queue:6379
kubectl -n mail patch networkpolicy mailer-egress --type=json -p '[
  {"op": "add", "path": "/spec/egress/-", "value": {
    "to": [{"podSelector": {"matchLabels": {"app": "bounce-queue"}}}],
    "ports": [{"port": 6379, "protocol": "TCP"}]}}]'
kubectl -n mail rollout status deployment/mailer --timeout=90s
