#!/bin/sh
set -e
# FailedScheduling: 1 node(s) were unschedulable, 2 node(s) didn't match Pod's node
# affinity/selector; the render node's maintenance is done (its annotation says so)
kubectl uncordon render
kubectl -n billing rollout status deployment/invoice-render --timeout=60s
