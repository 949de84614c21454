#!/bin/sh
# a strategic merge patch addressing the container by name, probing the path and port the
# previous revision used (port by number)
set -e
kubectl -n catalog patch deployment catalog -p \
  '{"spec": {"template": {"spec": {"containers": [{"name": "web", "readinessProbe": {"httpGet": {"path": "/index.html", "port": 80}}}]}}}}'
kubectl -n catalog rollout status deployment/catalog --timeout=90s
