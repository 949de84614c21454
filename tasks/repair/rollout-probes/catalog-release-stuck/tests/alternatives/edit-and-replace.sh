#!/bin/sh
# what `kubectl edit` does: fetch the Deployment, probe a page nginx serves (/index.html),
# replace the object
set -e
kubectl -n catalog get deployment catalog -o yaml \
  | sed -e 's#path: /health$#path: /index.html#' -e '/^  resourceVersion:/d' > /tmp/catalog.yaml
kubectl -n catalog replace -f /tmp/catalog.yaml
kubectl -n catalog rollout status deployment/catalog --timeout=90s
