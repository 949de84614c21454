#!/bin/sh
set -e
# kubectl describe hpa render-worker: FailedGetResourceMetric, missing request for cpu in
# container worker. The previous revision (3.4) requested 250m CPU and 256Mi memory.
kubectl -n render patch deployment render-worker --type=json -p \
  '[{"op": "add", "path": "/spec/template/spec/containers/0/resources",
     "value": {"requests": {"cpu": "250m", "memory": "256Mi"}, "limits": {"memory": "512Mi"}}}]'
kubectl -n render rollout status deployment/render-worker --timeout=90s
# the autoscaler picks the new pods' metrics up within a few syncs
kubectl -n render wait hpa/render-worker --for=condition=ScalingActive=True --timeout=90s
