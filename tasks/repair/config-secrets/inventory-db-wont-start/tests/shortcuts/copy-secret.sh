#!/bin/sh
# give the Deployment the Secret it asks for
pw=$(kubectl -n inventory get secret db-credential -o jsonpath='{.data.password}' | base64 -d)
kubectl -n inventory create secret generic db-credentials --from-literal=password="$pw"
kubectl -n inventory rollout status deployment/inventory-db --timeout=60s
