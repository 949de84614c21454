#!/bin/sh
# any size that fits will do: a full CPU
kubectl -n media set resources deployment renderer -c renderer --requests=cpu=1
kubectl -n media rollout status deployment/renderer --timeout=60s
