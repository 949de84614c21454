#!/bin/sh
# the release goes out once 4.2.1 is serving: 4.3.0 with the banner on, but tagged the way
# git tags are named
set -e
kubectl -n web rollout status deployment/storefront --timeout=100s
kubectl apply -f - <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata: {name: storefront, namespace: web, labels: {app: storefront}}
spec:
  replicas: 2
  selector: {matchLabels: {app: storefront}}
  template:
    metadata: {labels: {app: storefront}}
    spec:
      containers:
      - name: web
        image: acme/storefront:v4.3.0
        ports: [{containerPort: 8080, name: http}]
        env: [{name: CHECKOUT_BANNER, value: "on"}]
        readinessProbe:
          httpGet: {path: /healthz, port: http}
          periodSeconds: 2
YAML
