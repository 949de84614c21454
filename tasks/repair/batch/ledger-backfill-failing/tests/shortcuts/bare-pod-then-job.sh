#!/bin/sh
# run the export at once in a hand-made pod, delete the pod when done, then re-create the Job properly
kubectl -n ledger run export-now --image=acme/ledger-export:1.4 --restart=Never \
  --env=EXPORT_REGION=eu-west-1 --env=EXPORT_BUCKET=s3://acme-ledger-exports
kubectl -n ledger wait --for=jsonpath='{.status.phase}'=Succeeded pod/export-now --timeout=60s
kubectl -n ledger delete pod export-now
kubectl -n ledger delete job ledger-backfill --wait=true
kubectl -n ledger create job ledger-backfill --from=cronjob/ledger-export
kubectl -n ledger wait --for=condition=complete job/ledger-backfill --timeout=60s
