#!/bin/sh
# kubectl replace of the whole Deployment: the sidecar like ingest-api's, both containers hardened
set -e
cat <<'YAML' | kubectl -n ingest replace -f -
apiVersion: apps/v1
kind: Deployment
metadata: {name: collector, namespace: ingest, labels: {app: collector}}
spec:
  replicas: 2
  selector: {matchLabels: {app: collector}}
  template:
    metadata: {labels: {app: collector}}
    spec:
      securityContext:
        runAsNonRoot: true
        runAsUser: 10001
        seccompProfile: {type: RuntimeDefault}
      initContainers:
      - name: log-shipper
        image: acme/log-shipper:0.9
        restartPolicy: Always
        ports: [{containerPort: 9102, name: metrics}]
        securityContext:
          allowPrivilegeEscalation: false
          capabilities: {drop: [ALL]}
      containers:
      - name: collector
        image: acme/collector:5.0
        ports: [{containerPort: 4317, name: otlp}]
        securityContext:
          runAsNonRoot: true
          allowPrivilegeEscalation: false
          capabilities: {drop: [ALL]}
          seccompProfile: {type: RuntimeDefault}
YAML
kubectl -n ingest rollout status deployment/collector --timeout=90s
