#!/bin/sh
# delete the failed Job, then apply a Job whose pod template is the CronJob's, with a deadline
set -e
kubectl -n ledger delete job ledger-backfill --wait=true
cat <<'YAML' | kubectl -n ledger apply -f -
apiVersion: batch/v1
kind: Job
metadata:
  name: ledger-backfill
  labels: {app: ledger-backfill, trigger: manual}
  annotations: {acme.example/reason: "backfill for the missed nightly export"}
spec:
  backoffLimit: 2
  activeDeadlineSeconds: 600
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: export
        image: acme/ledger-export:1.4
        env:
        - {name: EXPORT_REGION, value: eu-west-1}
        - {name: EXPORT_BUCKET, value: "s3://acme-ledger-exports"}
YAML
kubectl -n ledger wait --for=condition=complete job/ledger-backfill --timeout=60s
