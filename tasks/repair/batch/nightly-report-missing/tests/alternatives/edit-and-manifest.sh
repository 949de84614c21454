#!/bin/sh
# kubectl edit-style resume (replace with suspend: false), and a catch-up Job written out
# from the nightly's jobTemplate by hand (env in another order)
set -e
kubectl -n reporting get cronjob nightly-report -o yaml \
  | sed 's/^  suspend: true$/  suspend: false/' \
  | kubectl replace -f -
cat <<'YAML' | kubectl -n reporting create -f -
apiVersion: batch/v1
kind: Job
metadata:
  name: nightly-report-catchup
  annotations: {acme.example/reason: "catch-up for the missed nightly reports"}
spec:
  backoffLimit: 2
  template:
    metadata: {labels: {app: nightly-report}}
    spec:
      restartPolicy: Never
      containers:
      - name: report
        image: acme/report-builder:2.7
        env:
        - {name: REPORT_RECIPIENTS, value: "finance@acme.example"}
        - {name: REPORT_KIND, value: nightly}
YAML
kubectl -n reporting wait --for=condition=complete job/nightly-report-catchup --timeout=60s
