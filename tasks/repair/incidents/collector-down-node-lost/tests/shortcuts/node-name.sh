#!/bin/sh
# bypass the scheduler: put the pods straight onto a node that is up
kubectl -n telemetry patch deployment collector --type=json -p '[
  {"op": "remove", "path": "/spec/template/spec/nodeSelector"},
  {"op": "add", "path": "/spec/template/spec/nodeName", "value": "ingest-2"}]'
kubectl -n telemetry rollout status deployment/collector --timeout=60s
