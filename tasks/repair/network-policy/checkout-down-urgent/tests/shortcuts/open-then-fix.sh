#!/bin/sh
# change-and-revert: let everything into the database to get checkout up at once, then
# tighten the rule to checkout on the right port
kubectl -n shop patch networkpolicy orders-db-ingress --type=json -p \
  '[{"op": "replace", "path": "/spec/ingress", "value": [{}]}]'
kubectl -n shop wait pod -l app=checkout --for=condition=Ready --timeout=60s
kubectl -n shop patch networkpolicy orders-db-ingress --type=json -p \
  '[{"op": "replace", "path": "/spec/ingress", "value": [{"from": [{"podSelector": {"matchLabels": {"app": "checkout"}}}], "ports": [{"protocol": "TCP", "port": "postgres"}]}]}]'
kubectl -n shop rollout status deployment/checkout --timeout=60s
