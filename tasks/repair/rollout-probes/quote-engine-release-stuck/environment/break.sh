#!/bin/sh
# release 5.2 goes out once 5.1 is serving: new rate tables, the port renamed to the mesh
# convention, a "faster" start-up check -- and a readiness probe still naming the old port
set -e
kubectl -n quotes rollout status deployment/quote-engine --timeout=100s
kubectl apply -f - <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata: {name: quote-engine, namespace: quotes, labels: {app: quote-engine}}
spec:
  replicas: 2
  selector: {matchLabels: {app: quote-engine}}
  template:
    metadata: {labels: {app: quote-engine}}
    spec:
      containers:
      - name: engine
        image: acme/quote-engine:5.2
        ports: [{containerPort: 8080, name: http-api}]
        env:
        - {name: RATE_SOURCE, value: "tables-2026q4"}
        - {name: RATES_URL, value: "redis://rates-cache:6379"}
        startupProbe:
          httpGet: {path: /healthz, port: http-api}
          periodSeconds: 1
          failureThreshold: 3
        readinessProbe:
          httpGet: {path: /ready, port: http}
          periodSeconds: 2
YAML
