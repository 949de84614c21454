#!/bin/sh
# replace the failed Job with one made from the nightly CronJob itself, under the same name
set -e
kubectl -n ledger delete job ledger-backfill --wait=true
kubectl -n ledger create job ledger-backfill --from=cronjob/ledger-export
kubectl -n ledger wait --for=condition=complete job/ledger-backfill --timeout=60s
