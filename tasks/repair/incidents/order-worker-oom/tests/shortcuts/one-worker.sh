#!/bin/sh
# one well-fed worker fits under the quota
kubectl -n orders scale deployment worker --replicas=1
kubectl -n orders set resources deployment worker --requests=memory=512Mi --limits=memory=512Mi
kubectl -n orders rollout status deployment/worker --timeout=90s
