#!/bin/sh
# drop the hostname pin and keep the collector off the batch node by tainting that node instead
kubectl taint node batch-1 dedicated=batch:NoSchedule --overwrite || kubectl taint node batch dedicated=batch:NoSchedule --overwrite
kubectl -n telemetry patch deployment collector --type=json -p '[{"op": "remove", "path": "/spec/template/spec/nodeSelector"}]'
kubectl -n telemetry rollout status deployment/collector --timeout=60s
