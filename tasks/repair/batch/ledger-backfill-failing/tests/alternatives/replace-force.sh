#!/bin/sh
# one kubectl replace --force of a clean manifest (env written in another order)
set -e
cat <<'YAML' | kubectl -n ledger replace --force -f -
apiVersion: batch/v1
kind: Job
metadata:
  name: ledger-backfill
  labels: {app: ledger-backfill}
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
        - name: EXPORT_BUCKET
          value: s3://acme-ledger-exports
        - name: EXPORT_REGION
          value: eu-west-1
YAML
kubectl -n ledger wait --for=condition=complete job/ledger-backfill --timeout=60s
