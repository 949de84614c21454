#!/bin/sh
# the API's port by its name; the database by matchExpressions on its app label
set -e
kubectl -n ledger patch networkpolicy api-ingress --type=json -p \
  '[{"op": "replace", "path": "/spec/ingress/0/ports/0/port", "value": "http"}]'
kubectl -n ledger patch networkpolicy api-egress --type=json -p \
  '[{"op": "replace", "path": "/spec/egress/0/to/0/podSelector", "value":
     {"matchExpressions": [{"key": "app", "operator": "In", "values": ["ledger-db"]}]}}]'
kubectl -n ledger wait pod -l app=api --for=condition=Ready --timeout=60s
kubectl -n ledger wait pod -l app=web --for=condition=Ready --timeout=60s
