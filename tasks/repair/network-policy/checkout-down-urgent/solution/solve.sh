#!/bin/sh
set -e
# checkout logs: dial tcp orders-db:5432: i/o timeout (the cache is fine). default-deny
# isolates everything; checkout-egress allows 5432 to orders-db; orders-db-ingress admits
# checkout only on the port named `postgresql`, a name the database's container port
# (`postgres`, 5432) does not have, so the rule admits nothing. Name the right port.
kubectl -n shop patch networkpolicy orders-db-ingress --type=json -p \
  '[{"op": "replace", "path": "/spec/ingress/0/ports/0/port", "value": "postgres"}]'
kubectl -n shop rollout status deployment/checkout --timeout=60s
