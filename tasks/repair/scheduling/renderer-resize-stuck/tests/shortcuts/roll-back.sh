#!/bin/sh
# go back to the size that fitted
kubectl -n media rollout undo deployment/renderer
kubectl -n media rollout status deployment/renderer --timeout=60s
