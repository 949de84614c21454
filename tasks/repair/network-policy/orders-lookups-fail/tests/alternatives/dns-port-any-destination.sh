#!/bin/sh
# the common DNS rule: port 53 (UDP and TCP) to any destination, appended
set -e
kubectl -n orders patch networkpolicy orders-api-egress --type=json -p '[
  {"op": "add", "path": "/spec/egress/-", "value": {
    "ports": [{"port": 53, "protocol": "UDP"}, {"port": 53, "protocol": "TCP"}]}}]'
kubectl -n orders wait pod -l app=orders-api --for=condition=Ready --timeout=60s
