#!/bin/sh
# kubectl edit-style: read the Deployment, write the agreed resources in, replace it
set -e
kubectl -n ml get deployment feature-store -o yaml \
  | sed 's/^        resources: {}$/        resources: {limits: {memory: 512Mi}, requests: {memory: 256Mi}}/' \
  | kubectl replace -f -
kubectl -n ml rollout status deployment/feature-store --timeout=90s
