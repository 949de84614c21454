#!/bin/sh
# admit the API's callers from every namespace (the web app moves namespaces some day),
# and fix the database selector
kubectl -n ledger patch networkpolicy api-ingress --type=json -p \
  '[{"op": "replace", "path": "/spec/ingress/0", "value": {"from": [{"namespaceSelector": {}}], "ports": [{"port": 8080, "protocol": "TCP"}]}}]'
kubectl -n ledger patch networkpolicy api-egress --type=json -p \
  '[{"op": "replace", "path": "/spec/egress/0/to/0/podSelector/matchLabels", "value": {"app": "ledger-db"}}]'
kubectl -n ledger wait pod -l app=web --for=condition=Ready --timeout=60s
