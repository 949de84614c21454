#!/bin/sh
# strategic merge patch by container name: replace the sidecar's ports and securityContext
set -e
kubectl -n ingest patch deployment collector -p '{"spec": {"template": {"spec": {"initContainers": [{
  "name": "log-shipper",
  "ports": [{"$patch": "replace"}, {"containerPort": 9102, "name": "metrics"}],
  "securityContext": {"$patch": "replace", "runAsNonRoot": true,
    "allowPrivilegeEscalation": false, "capabilities": {"drop": ["ALL"]}}}]}}}}'
kubectl -n ingest rollout status deployment/collector --timeout=90s
