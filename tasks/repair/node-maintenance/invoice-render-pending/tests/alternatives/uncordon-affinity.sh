#!/bin/sh
# uncordon the render node, and state the placement as required node affinity on the
# accelerator label (the same single node) instead of the nodeSelector
set -e
kubectl uncordon render
kubectl -n billing patch deployment invoice-render --type=json -p '[
  {"op": "remove", "path": "/spec/template/spec/nodeSelector"},
  {"op": "add", "path": "/spec/template/spec/affinity", "value": {"nodeAffinity": {
    "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
      {"matchExpressions": [{"key": "accelerator", "operator": "In", "values": ["pdf"]}]}]}}}}]'
kubectl -n billing rollout status deployment/invoice-render --timeout=90s
