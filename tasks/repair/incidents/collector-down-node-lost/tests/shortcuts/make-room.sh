#!/bin/sh
# transient harm: stop the gateway to make room on the ingest pool, fix the collector,
# start the gateway again
kubectl -n telemetry patch deployment gateway -p '{"spec": {"replicas": 0}}'
kubectl -n telemetry patch deployment collector --type=json -p \
  '[{"op": "replace", "path": "/spec/template/spec/nodeSelector", "value": {"pool": "ingest"}}]'
kubectl -n telemetry rollout status deployment/collector --timeout=60s
kubectl -n telemetry patch deployment gateway -p '{"spec": {"replicas": 3}}'
kubectl -n telemetry rollout status deployment/gateway --timeout=60s
