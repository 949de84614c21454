#!/bin/sh
# back to 3.0, which worked
kubectl -n edge rollout undo deployment/gateway
kubectl -n edge rollout status deployment/gateway --timeout=60s
