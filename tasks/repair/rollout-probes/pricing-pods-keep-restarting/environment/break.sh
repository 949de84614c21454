#!/bin/sh
# the "hardening" change goes out once the API is serving: a liveness probe, pointed at a
# port the API does not listen on
set -e
kubectl -n pricing rollout status deployment/pricing-api --timeout=100s
kubectl apply -f - <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata: {name: pricing-api, namespace: pricing, labels: {app: pricing-api}}
spec:
  replicas: 2
  minReadySeconds: 10
  selector: {matchLabels: {app: pricing-api}}
  template:
    metadata: {labels: {app: pricing-api}}
    spec:
      containers:
      - name: api
        image: acme/pricing-api:2.5
        ports:
        - {containerPort: 8080, name: http}
        - {containerPort: 9102, name: metrics}
        readinessProbe:
          httpGet: {path: /ready, port: http}
          periodSeconds: 2
        livenessProbe:
          httpGet: {path: /healthz, port: 8081}
          periodSeconds: 2
          failureThreshold: 3
YAML
