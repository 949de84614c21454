#!/bin/sh
# kubectl edit-style: read the ConfigMap, add queue-url under data, replace it; then nudge the
# waiting pod so it is retried at once
set -e
kubectl -n payments get configmap payments-config -o yaml \
  | sed 's#^  queue_url: redis://queue:6379$#  queue-url: redis://queue:6379\n  queue_url: redis://queue:6379#' \
  | kubectl replace -f -
kubectl -n payments delete pod -l app=payments
kubectl -n payments rollout status deployment/payments --timeout=60s
