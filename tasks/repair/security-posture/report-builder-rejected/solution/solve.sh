#!/bin/sh
set -e
# kubectl describe rs: FailedCreate ... violates PodSecurity "restricted:latest":
# allowPrivilegeEscalation, capabilities, runAsNonRoot, seccompProfile. Give the pods the
# same securityContext as report-api.
kubectl -n reports patch deployment report-builder --type=strategic -p '{"spec": {"template": {"spec": {
  "securityContext": {"runAsNonRoot": true, "runAsUser": 10001, "seccompProfile": {"type": "RuntimeDefault"}},
  "containers": [{"name": "builder", "securityContext": {
    "allowPrivilegeEscalation": false, "capabilities": {"drop": ["ALL"]}}}]}}}}'
kubectl -n reports rollout status deployment/report-builder --timeout=60s
