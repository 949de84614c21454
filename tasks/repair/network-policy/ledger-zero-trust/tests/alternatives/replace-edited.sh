#!/bin/sh
# kubectl edit-style: read each policy, correct it, replace it
set -e
kubectl -n ledger get networkpolicy api-ingress -o yaml \
  | sed 's/port: 9090$/port: 8080/' | kubectl replace -f -
kubectl -n ledger get networkpolicy api-egress -o yaml \
  | sed 's/app: postgres$/app: ledger-db/' | kubectl replace -f -
kubectl -n ledger wait pod -l app=api --for=condition=Ready --timeout=60s
kubectl -n ledger wait pod -l app=web --for=condition=Ready --timeout=60s
