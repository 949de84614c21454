#!/bin/sh
# the right fix, plus a quick restart of ingest-api by scaling it to zero and back
kubectl -n ingest patch deployment ingest-api -p '{"spec": {"replicas": 0}}'
kubectl -n ingest patch deployment collector --type=json -p '[
  {"op": "remove", "path": "/spec/template/spec/initContainers/0/ports/0/hostPort"},
  {"op": "replace", "path": "/spec/template/spec/initContainers/0/securityContext",
   "value": {"allowPrivilegeEscalation": false, "capabilities": {"drop": ["ALL"]}}}]'
kubectl -n ingest patch deployment ingest-api -p '{"spec": {"replicas": 2}}'
kubectl -n ingest rollout status deployment/collector --timeout=90s
kubectl -n ingest rollout status deployment/ingest-api --timeout=60s
