#!/bin/sh
# two steps: a merge patch for the pod-level context, a JSON patch for the container
set -e
kubectl -n reports patch deployment report-builder --type=merge -p '{"spec": {"template": {"spec": {
  "securityContext": {"runAsNonRoot": true, "runAsUser": 10001, "seccompProfile": {"type": "RuntimeDefault"}}}}}}'
kubectl -n reports patch deployment report-builder --type=json -p '[
  {"op": "add", "path": "/spec/template/spec/containers/0/securityContext",
   "value": {"allowPrivilegeEscalation": false, "capabilities": {"drop": ["ALL"]}}}]'
kubectl -n reports rollout status deployment/report-builder --timeout=60s
