#!/bin/sh
# "is it alive" only needs the port to answer: swap the HTTP check for a TCP one
kubectl -n pricing patch deployment pricing-api --type=json -p \
  '[{"op": "replace", "path": "/spec/template/spec/containers/0/livenessProbe", "value": {"tcpSocket": {"port": 8080}, "periodSeconds": 2, "failureThreshold": 3}}]'
kubectl -n pricing rollout status deployment/pricing-api --timeout=90s
