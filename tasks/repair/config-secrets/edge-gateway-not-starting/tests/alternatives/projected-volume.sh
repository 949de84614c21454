#!/bin/sh
# a projected volume with the shared ConfigMap's routes.yaml as config.yaml
set -e
kubectl -n edge patch deployment gateway --type=json -p '[
  {"op": "replace", "path": "/spec/template/spec/volumes/0",
   "value": {"name": "config", "projected": {"sources": [
     {"configMap": {"name": "gateway-routes",
                    "items": [{"key": "routes.yaml", "path": "config.yaml"}]}}]}}}]'
kubectl -n edge rollout status deployment/gateway --timeout=60s
