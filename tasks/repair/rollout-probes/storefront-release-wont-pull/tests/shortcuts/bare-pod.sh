#!/bin/sh
# roll back, and run the new version beside it by hand
kubectl -n web rollout undo deployment/storefront
kubectl -n web run storefront-430 --image=acme/storefront:4.3.0 --labels=app=storefront \
  --env=CHECKOUT_BANNER=on --port=8080
kubectl -n web rollout status deployment/storefront --timeout=60s
