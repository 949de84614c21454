#!/bin/sh
# what `kubectl edit` does: fetch the Deployment, fix the tag, replace the object
set -e
kubectl -n web get deployment storefront -o yaml \
  | sed -e 's#image: acme/storefront:v4.3.0$#image: acme/storefront:4.3.0#' -e '/^  resourceVersion:/d' \
  > /tmp/storefront.yaml
kubectl -n web replace -f /tmp/storefront.yaml
kubectl -n web rollout status deployment/storefront --timeout=90s
