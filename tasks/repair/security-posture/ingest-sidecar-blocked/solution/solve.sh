#!/bin/sh
set -e
# the new ReplicaSet: FailedCreate ... violates PodSecurity "restricted:latest": hostPort
# (container "log-shipper" uses hostPort 9102), allowPrivilegeEscalation != false,
# unrestricted capabilities, runAsUser=0. Make the sidecar look like ingest-api's.
kubectl -n ingest patch deployment collector --type=json -p '[
  {"op": "remove", "path": "/spec/template/spec/initContainers/0/ports/0/hostPort"},
  {"op": "replace", "path": "/spec/template/spec/initContainers/0/securityContext",
   "value": {"allowPrivilegeEscalation": false, "capabilities": {"drop": ["ALL"]}}}]'
kubectl -n ingest rollout status deployment/collector --timeout=90s
