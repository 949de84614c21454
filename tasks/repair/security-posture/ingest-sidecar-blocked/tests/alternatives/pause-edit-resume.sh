#!/bin/sh
# pause the rollout, fix the host port and the securityContext in two edits, resume once
set -e
kubectl -n ingest rollout pause deployment/collector
kubectl -n ingest patch deployment collector --type=json -p '[{"op": "remove", "path": "/spec/template/spec/initContainers/0/ports/0/hostPort"}]'
kubectl -n ingest patch deployment collector --type=json -p '[{"op": "replace", "path": "/spec/template/spec/initContainers/0/securityContext", "value": {"runAsNonRoot": true, "allowPrivilegeEscalation": false, "capabilities": {"drop": ["ALL"]}}}]'
kubectl -n ingest rollout resume deployment/collector
kubectl -n ingest rollout status deployment/collector --timeout=90s
