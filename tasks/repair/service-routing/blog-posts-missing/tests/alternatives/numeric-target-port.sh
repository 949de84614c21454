#!/bin/sh
# point the Service at the pods' port by number (merge patch of the port list)
set -e
kubectl -n blog patch service posts-api --type=merge \
  -p '{"spec": {"ports": [{"name": "http", "port": 80, "protocol": "TCP", "targetPort": 80}]}}'
kubectl -n blog rollout status deployment/frontend --timeout=60s
