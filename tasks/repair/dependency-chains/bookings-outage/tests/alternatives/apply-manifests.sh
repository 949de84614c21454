#!/bin/sh
# apply corrected manifests: the Service as written, the database's env by strategic merge
set -e
cat <<'YAML' | kubectl apply -f -
apiVersion: v1
kind: Service
metadata: {name: bookings-api, namespace: travel}
spec:
  selector: {app: bookings-api}
  ports: [{name: http, port: 8080, targetPort: http}]
YAML
kubectl -n travel patch deployment bookings-db -p '{"spec": {"template": {"spec": {"containers": [
  {"name": "postgres", "env": [{"name": "POSTGRES_PASSWORD", "valueFrom":
    {"secretKeyRef": {"name": "bookings-db", "key": "postgres-password"}}}]}]}}}}'
kubectl -n travel rollout status deployment/bookings-db --timeout=90s
kubectl -n travel wait pod -l app=bookings-api --for=condition=Ready --timeout=60s
kubectl -n travel wait pod -l app=web --for=condition=Ready --timeout=60s
