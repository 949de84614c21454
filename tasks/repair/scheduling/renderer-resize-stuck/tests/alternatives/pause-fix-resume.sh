#!/bin/sh
# pause the stuck rollout, correct the CPU request to the approved 500m, resume
set -e
kubectl -n media rollout pause deployment/renderer
kubectl -n media set resources deployment renderer -c renderer --requests=cpu=500m
kubectl -n media rollout resume deployment/renderer
kubectl -n media rollout status deployment/renderer --timeout=60s
