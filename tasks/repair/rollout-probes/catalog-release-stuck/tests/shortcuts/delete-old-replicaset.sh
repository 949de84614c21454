#!/bin/sh
# the old ReplicaSet is what the rollout waits on: remove it, then fix the probe
old=$(kubectl -n catalog get rs -l app=catalog -o jsonpath='{range .items[?(@.status.readyReplicas>0)]}{.metadata.name}{"\n"}{end}' | head -n 1)
[ -n "$old" ] && kubectl -n catalog delete rs "$old"
kubectl -n catalog patch deployment catalog --type=json -p \
  '[{"op": "replace", "path": "/spec/template/spec/containers/0/readinessProbe/httpGet/path", "value": "/index.html"}]'
kubectl -n catalog rollout status deployment/catalog --timeout=90s
