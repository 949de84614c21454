#!/bin/sh
# Follows the evidence protocol: prescribes the fix, applies it, reports.
set -e
kubectl -n shop get role reporter -o yaml > /dev/null
fix='[{"op": "replace", "path": "/rules/0/verbs", "value": ["get", "list", "watch"]}]'
answer=$(prescribe --intent "let the reporter list and watch pods" --target roles/shop/reporter \
  --command "kubectl -n shop patch role reporter --type=json -p '$fix'")
echo "$answer"
id=$(echo "$answer" | sed -n 's/^prescription //p')
kubectl -n shop patch role reporter --type=json -p "$fix"
report --id "$id" --verdict success --outcome "role patched" --reason "list and watch were missing"
kubectl -n shop rollout status deployment/reporter --timeout=60s
