#!/bin/sh
# kubectl edit-style: read the Deployment, write the 3.4 resources block back, replace it
set -e
kubectl -n render get deployment render-worker -o yaml \
  | sed 's/^        resources: {}$/        resources: {limits: {memory: 512Mi}, requests: {cpu: 250m, memory: 256Mi}}/' \
  | kubectl replace -f -
kubectl -n render rollout status deployment/render-worker --timeout=90s
# the autoscaler picks the new pods' metrics up within a few syncs
kubectl -n render wait hpa/render-worker --for=condition=ScalingActive=True --timeout=90s
