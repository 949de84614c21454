#!/bin/sh
# 4.3.0 will not pull: ship the last version that does, with the banner switched on
kubectl -n web set image deployment/storefront web=acme/storefront:4.2.1
kubectl -n web rollout status deployment/storefront --timeout=60s
