#!/bin/sh
# transient harm: fix the policies, then restart the database from zero so the API
# reconnects
kubectl -n ledger patch networkpolicy api-ingress --type=json -p \
  '[{"op": "replace", "path": "/spec/ingress/0/ports/0/port", "value": 8080}]'
kubectl -n ledger patch networkpolicy api-egress --type=json -p \
  '[{"op": "replace", "path": "/spec/egress/0/to/0/podSelector/matchLabels", "value": {"app": "ledger-db"}}]'
kubectl -n ledger patch deployment ledger-db -p '{"spec": {"replicas": 0}}'
kubectl -n ledger patch deployment ledger-db -p '{"spec": {"replicas": 1}}'
kubectl -n ledger wait pod -l app=web --for=condition=Ready --timeout=60s
