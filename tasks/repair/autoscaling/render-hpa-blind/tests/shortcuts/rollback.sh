#!/bin/sh
# 3.4 autoscaled fine
kubectl -n render rollout undo deployment/render-worker
kubectl -n render rollout status deployment/render-worker --timeout=60s
