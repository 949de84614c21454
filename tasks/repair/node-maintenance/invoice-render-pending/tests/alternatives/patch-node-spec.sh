#!/bin/sh
# the render node's maintenance is over: mark it schedulable again with a merge patch of the
# Node (what `kubectl uncordon` does)
set -e
kubectl patch node render --type=merge -p '{"spec": {"unschedulable": false}}'
kubectl -n billing rollout status deployment/invoice-render --timeout=90s
