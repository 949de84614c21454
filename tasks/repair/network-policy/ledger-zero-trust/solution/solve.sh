#!/bin/sh
set -e
# web logs: dial tcp api:8080 i/o timeout: api-ingress admits web on 9090 (metrics), not
# 8080. api logs: dial tcp ledger-db:5432 i/o timeout: api-egress allows app=postgres, but
# the database pods are app=ledger-db.
kubectl -n ledger patch networkpolicy api-ingress --type=json -p \
  '[{"op": "replace", "path": "/spec/ingress/0/ports/0/port", "value": 8080}]'
kubectl -n ledger patch networkpolicy api-egress --type=json -p \
  '[{"op": "replace", "path": "/spec/egress/0/to/0/podSelector/matchLabels", "value": {"app": "ledger-db"}}]'
kubectl -n ledger wait pod -l app=api --for=condition=Ready --timeout=60s
kubectl -n ledger wait pod -l app=web --for=condition=Ready --timeout=60s
