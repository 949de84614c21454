#!/bin/sh
set -e
# kubectl logs: fatal: unknown region in EXPORT_REGION; the CronJob runs it with
# eu-west-1. A Job's pod template cannot be changed: re-create the Job with the fix.
kubectl -n ledger get job ledger-backfill -o json > /tmp/backfill.json
kubectl -n ledger delete job ledger-backfill --wait=true
cat <<'YAML' | kubectl -n ledger create -f -
apiVersion: batch/v1
kind: Job
metadata: {name: ledger-backfill, labels: {app: ledger-backfill}}
spec:
  backoffLimit: 1
  template:
    metadata: {labels: {app: ledger-backfill}}
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
