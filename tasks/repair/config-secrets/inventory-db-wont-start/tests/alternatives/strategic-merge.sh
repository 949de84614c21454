#!/bin/sh
# a strategic merge patch that names the container and the variable (no list positions)
set -e
kubectl -n inventory patch deployment inventory-db --type=strategic -p '
{"spec": {"template": {"spec": {"containers": [
  {"name": "postgres", "env": [{"name": "POSTGRES_PASSWORD", "valueFrom":
    {"secretKeyRef": {"name": "db-credential", "key": "password"}}}]}]}}}}'
kubectl -n inventory rollout status deployment/inventory-db --timeout=60s
