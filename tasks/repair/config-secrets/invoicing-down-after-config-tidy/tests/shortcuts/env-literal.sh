#!/bin/sh
# an env literal wins over envFrom
kubectl -n commerce set env deployment/invoicing PAYMENTS_API_VERSION=v2
kubectl -n commerce rollout status deployment/invoicing --timeout=60s
