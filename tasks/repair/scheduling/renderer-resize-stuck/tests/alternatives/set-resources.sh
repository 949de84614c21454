#!/bin/sh
# kubectl set resources: the approved CPU request from the change-cause
set -e
kubectl -n media set resources deployment renderer -c renderer --requests=cpu=500m
kubectl -n media rollout status deployment/renderer --timeout=60s
