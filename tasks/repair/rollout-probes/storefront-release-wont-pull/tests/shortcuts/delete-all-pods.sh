#!/bin/sh
# fix the tag and clear out every storefront pod so the new ones come up at once
kubectl -n web set image deployment/storefront web=acme/storefront:4.3.0
kubectl -n web delete pods -l app=storefront --wait=false
kubectl -n web rollout status deployment/storefront --timeout=60s
