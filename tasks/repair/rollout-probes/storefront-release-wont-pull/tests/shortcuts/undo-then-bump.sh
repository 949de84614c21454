#!/bin/sh
# roll back to the working revision, then bump its image to 4.3.0
kubectl -n web rollout undo deployment/storefront
kubectl -n web rollout status deployment/storefront --timeout=60s
kubectl -n web set image deployment/storefront web=acme/storefront:4.3.0
kubectl -n web rollout status deployment/storefront --timeout=60s
