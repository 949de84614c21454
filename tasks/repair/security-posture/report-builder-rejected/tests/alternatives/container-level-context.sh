#!/bin/sh
# put the whole restricted securityContext on the container (JSON patch), its own UID
set -e
kubectl -n reports patch deployment report-builder --type=json -p '[
  {"op": "add", "path": "/spec/template/spec/containers/0/securityContext", "value": {
    "runAsNonRoot": true, "runAsUser": 20001, "allowPrivilegeEscalation": false,
    "capabilities": {"drop": ["ALL"]}, "seccompProfile": {"type": "RuntimeDefault"},
    "readOnlyRootFilesystem": true}}]'
kubectl -n reports rollout status deployment/report-builder --timeout=60s
