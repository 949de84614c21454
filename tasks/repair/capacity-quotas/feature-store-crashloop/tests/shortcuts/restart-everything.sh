#!/bin/sh
# transient harm: the right fix, then restart every pod in the namespace at once
kubectl -n ml set resources deployment/feature-store -c feature-store \
  --requests=memory=256Mi --limits=memory=512Mi
kubectl -n ml delete pods --all --wait=false
kubectl -n ml rollout status deployment/feature-store --timeout=90s
kubectl -n ml rollout status deployment/feature-api --timeout=90s
