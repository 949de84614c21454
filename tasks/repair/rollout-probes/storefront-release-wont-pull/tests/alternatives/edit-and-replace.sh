#!/bin/sh
# what `kubectl edit` does: fetch the Deployment, fix the tag, replace the object (fetching
# again if it changed in between, as edit asks you to)
set -e
ok=
for i in 1 2 3 4 5 6; do
  kubectl -n web get deployment storefront -o yaml \
    | sed -e 's#image: acme/storefront:v4.3.0$#image: acme/storefront:4.3.0#' > /tmp/storefront.yaml
  if kubectl -n web replace -f /tmp/storefront.yaml; then ok=1; break; fi
  sleep 1
done
[ -n "$ok" ]
kubectl -n web rollout status deployment/storefront --timeout=90s
