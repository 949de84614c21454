#!/bin/sh
set -e
# the pod waits with: couldn't find key queue-url in ConfigMap payments/payments-config;
# the ConfigMap now has queue_url. Both workers read queue-url: put the key back beside it.
url=$(kubectl -n payments get configmap payments-config -o jsonpath='{.data.queue_url}')
kubectl -n payments patch configmap payments-config --type=merge \
  -p "{\"data\": {\"queue-url\": \"$url\"}}"
kubectl -n payments rollout status deployment/payments --timeout=60s
