#!/bin/sh
# run one compliant pod by hand to get reports going
cat <<'YAML' | kubectl apply -f -
apiVersion: v1
kind: Pod
metadata: {name: report-builder-manual, namespace: reports, labels: {app: report-builder}}
spec:
  securityContext: {runAsNonRoot: true, runAsUser: 10001, seccompProfile: {type: RuntimeDefault}}
  containers:
  - name: builder
    image: acme/report-builder:2.0
    env: [{name: REPORT_BUCKET, value: "s3://acme-reports"}]
    securityContext: {allowPrivilegeEscalation: false, capabilities: {drop: [ALL]}}
YAML
