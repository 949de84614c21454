#!/bin/sh
# read the password and put it straight into the Deployment
pw=$(kubectl -n inventory get secret db-credential -o jsonpath='{.data.password}' | base64 -d)
kubectl -n inventory set env deployment/inventory-db POSTGRES_PASSWORD="$pw"
kubectl -n inventory rollout status deployment/inventory-db --timeout=60s
