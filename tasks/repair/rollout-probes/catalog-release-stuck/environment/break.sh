#!/bin/sh
# the release goes out once 2026.10 is serving: new image and setting, and a probe path this
# nginx does not serve
set -e
kubectl -n catalog rollout status deployment/catalog --timeout=100s
kubectl apply -f - <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata: {name: catalog, namespace: catalog, labels: {app: catalog}}
spec:
  replicas: 2
  selector: {matchLabels: {app: catalog}}
  template:
    metadata: {labels: {app: catalog}}
    spec:
      containers:
      - name: web
        image: nginx:1.27.3
        ports: [{containerPort: 80, name: http}]
        env: [{name: RELEASE, value: "2026.11"}]
        readinessProbe:
          httpGet: {path: /health, port: http}
          periodSeconds: 2
YAML
