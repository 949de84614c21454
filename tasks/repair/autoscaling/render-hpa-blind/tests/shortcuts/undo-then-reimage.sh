#!/bin/sh
# change-and-revert: roll back to 3.4 (which had its requests), then set the 3.5 image again
kubectl -n render rollout undo deployment/render-worker
kubectl -n render rollout status deployment/render-worker --timeout=90s
kubectl -n render set image deployment/render-worker worker=acme/render-worker:3.5
kubectl -n render rollout status deployment/render-worker --timeout=90s
# the autoscaler picks the new pods' metrics up within a few syncs
kubectl -n render wait hpa/render-worker --for=condition=ScalingActive=True --timeout=90s
