#!/bin/sh
set -e
# ingest-1 is NotReady and tainted; the collector is pinned to it by hostname. The ingest
# pool's nodes all carry pool=ingest: select the pool, not the node.
kubectl -n telemetry patch deployment collector --type=json -p \
  '[{"op": "replace", "path": "/spec/template/spec/nodeSelector", "value": {"pool": "ingest"}}]'
kubectl -n telemetry rollout status deployment/collector --timeout=60s
