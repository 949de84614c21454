#!/bin/sh
# kubectl replace of the whole Deployment, hardened like report-api
set -e
cat <<'YAML' | kubectl -n reports replace -f -
apiVersion: apps/v1
kind: Deployment
metadata: {name: report-builder, namespace: reports, labels: {app: report-builder}}
spec:
  replicas: 2
  selector: {matchLabels: {app: report-builder}}
  template:
    metadata: {labels: {app: report-builder}}
    spec:
      securityContext:
        runAsNonRoot: true
        runAsUser: 10001
        runAsGroup: 10001
        seccompProfile: {type: RuntimeDefault}
      containers:
      - name: builder
        image: acme/report-builder:2.0
        ports: [{containerPort: 8080, name: http}]
        env:
        - {name: REPORT_BUCKET, value: "s3://acme-reports"}
        securityContext:
          allowPrivilegeEscalation: false
          capabilities: {drop: [ALL]}
YAML
kubectl -n reports rollout status deployment/report-builder --timeout=60s
