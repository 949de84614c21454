#!/bin/sh
# reuse the auditor's Role: let it read pods too and add the reporter to its binding
kubectl -n shop patch role auditor --type=json \
  -p '[{"op": "add", "path": "/rules/-", "value": {"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list", "watch"]}}]'
kubectl -n shop patch rolebinding auditor --type=json \
  -p '[{"op": "add", "path": "/subjects/-", "value": {"kind": "ServiceAccount", "name": "reporter", "namespace": "shop"}}]'
kubectl -n shop rollout status deployment/reporter --timeout=60s
