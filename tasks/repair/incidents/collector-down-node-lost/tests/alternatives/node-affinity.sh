#!/bin/sh
# place the collector on the ingest pool with required node affinity instead of a selector
set -e
kubectl -n telemetry patch deployment collector --type=json -p '[
  {"op": "remove", "path": "/spec/template/spec/nodeSelector"},
  {"op": "add", "path": "/spec/template/spec/affinity", "value": {"nodeAffinity": {
    "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
      {"matchExpressions": [{"key": "pool", "operator": "In", "values": ["ingest"]}]}]}}}}]'
kubectl -n telemetry rollout status deployment/collector --timeout=90s
