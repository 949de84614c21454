#!/bin/sh
# skip the scheduler: bind the pods straight to the render node, cordon or not
kubectl -n billing patch deployment invoice-render --type=merge -p \
  '{"spec": {"template": {"spec": {"nodeName": "render"}}}}'
kubectl -n billing rollout status deployment/invoice-render --timeout=60s
