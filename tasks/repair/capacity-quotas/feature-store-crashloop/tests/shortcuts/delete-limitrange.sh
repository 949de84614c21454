#!/bin/sh
# no defaults, no 128Mi limit
kubectl -n ml delete limitrange defaults
kubectl -n ml rollout restart deployment/feature-store
kubectl -n ml rollout status deployment/feature-store --timeout=90s
