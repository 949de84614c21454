# the api lands on node-2; the on-call cordons node-2 and tries to drain it: the worker and
# cache move, the api's budget (minAvailable 2 of 2) refuses every eviction
set -e
kubectl cordon node-1 node-3
kubectl -n shop scale deployment api --replicas=2
kubectl -n shop rollout status deployment/api --timeout=90s
kubectl uncordon node-1 node-3
kubectl cordon node-2
kubectl drain node-2 --ignore-daemonsets --delete-emptydir-data --timeout=15s || true
