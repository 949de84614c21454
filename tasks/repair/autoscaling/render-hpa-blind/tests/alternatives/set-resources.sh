#!/bin/sh
# restore 3.4's requests and memory limit on the worker container with kubectl set resources
set -e
kubectl -n render set resources deployment/render-worker -c worker \
  --requests=cpu=250m,memory=256Mi --limits=memory=512Mi
kubectl -n render rollout status deployment/render-worker --timeout=90s
# the autoscaler picks the new pods' metrics up within a few syncs
kubectl -n render wait hpa/render-worker --for=condition=ScalingActive=True --timeout=90s
