#!/bin/sh
# the release: a log-shipper sidecar, copied from a node-level DaemonSet manifest
set -e
kubectl -n ingest rollout status deployment/collector --timeout=90s
kubectl -n ingest patch deployment collector --type=json -p '[
  {"op": "add", "path": "/spec/template/spec/initContainers", "value": [{
    "name": "log-shipper", "image": "acme/log-shipper:0.9", "restartPolicy": "Always",
    "ports": [{"containerPort": 9102, "name": "metrics", "hostPort": 9102}],
    "securityContext": {"runAsUser": 0}}]}]'
