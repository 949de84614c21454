#!/bin/sh
set -e
# Failed to pull image "acme/storefront:v4.3.0": not found. The previous revision ran
# acme/storefront:4.2.1 and the release notes say images are acme/storefront:<version>.
kubectl -n web set image deployment/storefront web=acme/storefront:4.3.0
kubectl -n web rollout status deployment/storefront --timeout=60s
