#!/bin/sh
# 5.1 worked
kubectl -n quotes rollout undo deployment/quote-engine
kubectl -n quotes rollout status deployment/quote-engine --timeout=90s
