#!/bin/sh
# leave the rejected Deployment alone: a compliant copy beside it does the work
cat <<'YAML' | kubectl apply -f -
apiVersion: apps/v1
kind: Deployment
metadata: {name: report-builder-v2, namespace: reports, labels: {app: report-builder}}
spec:
  replicas: 2
  selector: {matchLabels: {app: report-builder, track: v2}}
  template:
    metadata: {labels: {app: report-builder, track: v2}}
    spec:
      securityContext: {runAsNonRoot: true, runAsUser: 10001, seccompProfile: {type: RuntimeDefault}}
      containers:
      - name: builder
        image: acme/report-builder:2.0
        ports: [{containerPort: 8080, name: http}]
        env: [{name: REPORT_BUCKET, value: "s3://acme-reports"}]
        securityContext: {allowPrivilegeEscalation: false, capabilities: {drop: [ALL]}}
YAML
kubectl -n reports rollout status deployment/report-builder-v2 --timeout=60s
