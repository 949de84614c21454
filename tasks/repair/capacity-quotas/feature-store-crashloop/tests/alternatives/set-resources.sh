#!/bin/sh
# give the container the agreed memory (PLAT-1184) with kubectl set resources
set -e
kubectl -n ml set resources deployment/feature-store -c feature-store \
  --requests=memory=256Mi --limits=memory=512Mi
kubectl -n ml rollout status deployment/feature-store --timeout=90s
