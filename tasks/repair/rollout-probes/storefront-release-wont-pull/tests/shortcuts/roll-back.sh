#!/bin/sh
# the old version works
kubectl -n web rollout undo deployment/storefront
kubectl -n web rollout status deployment/storefront --timeout=60s
