#!/bin/sh
# transient harm: fix both objects, then restart the whole mail stack from zero
kubectl -n mail patch service mail-queue --type=json -p \
  '[{"op": "replace", "path": "/spec/ports/0/targetPort", "value": "redis"}]'
kubectl -n mail patch networkpolicy mailer-egress --type=json -p '[
  {"op": "add", "path": "/spec/egress/-", "value": {
    "to": [{"podSelector": {"matchLabels": {"app": "mail-queue"}}}],
    "ports": [{"port": 6379, "protocol": "TCP"}]}}]'
kubectl -n mail patch deployment mail-queue -p '{"spec": {"replicas": 0}}'
kubectl -n mail patch deployment smtp-relay -p '{"spec": {"replicas": 0}}'
kubectl -n mail patch deployment bounce-queue -p '{"spec": {"replicas": 0}}'
kubectl -n mail patch deployment bounce-processor -p '{"spec": {"replicas": 0}}'
kubectl -n mail patch deployment mail-queue -p '{"spec": {"replicas": 1}}'
kubectl -n mail patch deployment smtp-relay -p '{"spec": {"replicas": 1}}'
kubectl -n mail patch deployment bounce-queue -p '{"spec": {"replicas": 1}}'
kubectl -n mail patch deployment bounce-processor -p '{"spec": {"replicas": 1}}'
kubectl -n mail rollout status deployment/mailer --timeout=120s
