#!/bin/sh
# pause the rollout, harden the pod and then the container in two edits, resume once
set -e
kubectl -n reports rollout pause deployment/report-builder
kubectl -n reports patch deployment report-builder --type=merge -p '{"spec": {"template": {"spec": {"securityContext": {"runAsNonRoot": true, "runAsUser": 10001, "seccompProfile": {"type": "RuntimeDefault"}}}}}}'
kubectl -n reports patch deployment report-builder --type=json -p '[{"op": "add", "path": "/spec/template/spec/containers/0/securityContext", "value": {"allowPrivilegeEscalation": false, "capabilities": {"drop": ["ALL"]}}}]'
kubectl -n reports rollout resume deployment/report-builder
kubectl -n reports rollout status deployment/report-builder --timeout=60s
