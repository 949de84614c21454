#!/bin/sh
# both Deployments back to the revisions before INC-5521, reporting first
set -e
kubectl -n orders rollout undo deployment/reporting
kubectl -n orders rollout status deployment/reporting --timeout=90s
kubectl -n orders rollout undo deployment/worker
kubectl -n orders rollout status deployment/worker --timeout=90s
