#!/bin/sh
# kubectl set resources: reporting back to a limit near its use, then the workers to 512Mi
set -e
kubectl -n orders set resources deployment reporting -c reporting --limits=memory=256Mi
kubectl -n orders rollout status deployment/reporting --timeout=90s
kubectl -n orders set resources deployment worker -c worker --requests=memory=512Mi --limits=memory=512Mi
kubectl -n orders rollout status deployment/worker --timeout=90s
