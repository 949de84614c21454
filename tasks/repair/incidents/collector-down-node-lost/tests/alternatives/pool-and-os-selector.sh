#!/bin/sh
# merge patch: drop the hostname pin, select the pool (and linux, true of every node)
set -e
kubectl -n telemetry patch deployment collector --type=merge -p '{"spec": {"template": {"spec":
  {"nodeSelector": {"kubernetes.io/hostname": null, "pool": "ingest", "kubernetes.io/os": "linux"}}}}}'
kubectl -n telemetry rollout status deployment/collector --timeout=90s
