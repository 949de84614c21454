#!/bin/sh
# start over with a fresh Deployment carrying the fixed probe
set -e
kubectl -n catalog get deployment catalog -o yaml > /tmp/catalog.yaml
kubectl -n catalog delete deployment catalog
sed -e 's#path: /health$#path: /index.html#' /tmp/catalog.yaml \
  | grep -v -E '^  (uid|resourceVersion|creationTimestamp):' > /tmp/catalog-new.yaml
kubectl -n catalog create -f /tmp/catalog-new.yaml
