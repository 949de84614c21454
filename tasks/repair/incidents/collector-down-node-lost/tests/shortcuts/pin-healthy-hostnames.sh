#!/bin/sh
# pin to the two ingest nodes that are up today, by name
kubectl -n telemetry patch deployment collector --type=json -p '[
  {"op": "remove", "path": "/spec/template/spec/nodeSelector"},
  {"op": "add", "path": "/spec/template/spec/affinity", "value": {"nodeAffinity": {
    "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
      {"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In",
                             "values": ["ingest-2", "ingest-3"]}]}]}}}}]'
kubectl -n telemetry rollout status deployment/collector --timeout=60s
