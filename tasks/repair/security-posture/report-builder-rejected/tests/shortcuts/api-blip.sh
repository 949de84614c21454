#!/bin/sh
# the right fix, plus a quick restart of report-api by scaling it to zero and back
kubectl -n reports patch deployment report-api -p '{"spec": {"replicas": 0}}'
kubectl -n reports patch deployment report-builder --type=strategic -p '{"spec": {"template": {"spec": {
  "securityContext": {"runAsNonRoot": true, "runAsUser": 10001, "seccompProfile": {"type": "RuntimeDefault"}},
  "containers": [{"name": "builder", "securityContext": {
    "allowPrivilegeEscalation": false, "capabilities": {"drop": ["ALL"]}}}]}}}}'
kubectl -n reports patch deployment report-api -p '{"spec": {"replicas": 2}}'
kubectl -n reports rollout status deployment/report-builder --timeout=60s
kubectl -n reports rollout status deployment/report-api --timeout=60s
