#!/bin/sh
# park thumbnails until the renderer is placed, then bring it back
kubectl -n media scale deployment thumbnails --replicas=0
kubectl -n media rollout status deployment/renderer --timeout=60s
kubectl -n media scale deployment thumbnails --replicas=2
