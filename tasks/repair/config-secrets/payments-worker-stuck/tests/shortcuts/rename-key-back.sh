#!/bin/sh
# undo the clean-up wholesale
kubectl -n payments patch configmap payments-config --type=json -p \
  '[{"op": "move", "from": "/data/queue_url", "path": "/data/queue-url"}]'
