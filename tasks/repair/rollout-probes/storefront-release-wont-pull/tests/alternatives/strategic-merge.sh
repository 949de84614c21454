#!/bin/sh
# a strategic merge patch addressing the container by name
set -e
kubectl -n web patch deployment storefront -p \
  '{"spec": {"template": {"spec": {"containers": [{"name": "web", "image": "acme/storefront:4.3.0"}]}}}}'
kubectl -n web rollout status deployment/storefront --timeout=90s
