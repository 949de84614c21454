#!/bin/sh
# go back to what worked
kubectl -n catalog rollout undo deployment/catalog
kubectl -n catalog rollout status deployment/catalog --timeout=60s
