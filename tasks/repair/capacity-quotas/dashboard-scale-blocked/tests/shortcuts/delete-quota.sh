#!/bin/sh
# no quota, no limit
kubectl -n analytics delete resourcequota compute
kubectl -n analytics rollout status deployment/dashboard --timeout=90s
