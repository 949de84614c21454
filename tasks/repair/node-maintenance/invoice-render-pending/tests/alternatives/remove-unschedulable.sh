#!/bin/sh
# remove the Node's unschedulable flag with a JSON patch
set -e
kubectl patch node render --type=json -p '[{"op": "remove", "path": "/spec/unschedulable"}]'
kubectl -n billing rollout status deployment/invoice-render --timeout=90s
