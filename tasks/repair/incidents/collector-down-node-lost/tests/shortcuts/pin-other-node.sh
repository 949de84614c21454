#!/bin/sh
# move the pin to a node that is up
kubectl -n telemetry patch deployment collector --type=json -p \
  '[{"op": "replace", "path": "/spec/template/spec/nodeSelector", "value": {"kubernetes.io/hostname": "ingest-2"}}]'
kubectl -n telemetry rollout status deployment/collector --timeout=60s
