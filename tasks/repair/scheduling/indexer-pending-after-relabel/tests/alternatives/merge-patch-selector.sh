#!/bin/sh
# merge patch: drop the old key, add the new one, and keep an always-true os key beside it
set -e
kubectl -n search patch deployment indexer --type=merge -p \
  '{"spec": {"template": {"spec": {"nodeSelector": {"disktype": null, "disk": "ssd", "kubernetes.io/os": "linux"}}}}}'
kubectl -n search rollout status deployment/indexer --timeout=60s
