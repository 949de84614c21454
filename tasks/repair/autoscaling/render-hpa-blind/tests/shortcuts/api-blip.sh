#!/bin/sh
# transient harm: free CPU for the workers by parking render-api at 0 for a moment, then the fix
kubectl -n render scale deployment render-api --replicas=0
kubectl -n render set resources deployment/render-worker -c worker \
  --requests=cpu=250m,memory=256Mi --limits=memory=512Mi
kubectl -n render scale deployment render-api --replicas=2
kubectl -n render rollout status deployment/render-api --timeout=60s
kubectl -n render rollout status deployment/render-worker --timeout=90s
# the autoscaler picks the new pods' metrics up within a few syncs
kubectl -n render wait hpa/render-worker --for=condition=ScalingActive=True --timeout=90s
