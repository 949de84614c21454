#!/bin/sh
# strategic merge patches by container name, with other workable sizes (reporting 192Mi,
# workers 480Mi/500Mi)
set -e
kubectl -n orders patch deployment reporting -p '{"spec": {"template": {"spec": {"containers": [
  {"name": "reporting", "resources": {"limits": {"memory": "192Mi"}}}]}}}}'
kubectl -n orders rollout status deployment/reporting --timeout=90s
kubectl -n orders patch deployment worker -p '{"spec": {"template": {"spec": {"containers": [
  {"name": "worker", "resources": {"requests": {"memory": "480Mi"}, "limits": {"memory": "500Mi"}}}]}}}}'
kubectl -n orders rollout status deployment/worker --timeout=90s
