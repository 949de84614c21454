#!/bin/sh
# change-and-revert: suspend the nightly CronJob while the backfill runs, resume it after
kubectl -n ledger patch cronjob ledger-export --type=merge -p '{"spec": {"suspend": true}}'
kubectl -n ledger delete job ledger-backfill --wait=true
kubectl -n ledger create job ledger-backfill --from=cronjob/ledger-export
kubectl -n ledger wait --for=condition=complete job/ledger-backfill --timeout=60s
kubectl -n ledger patch cronjob ledger-export --type=merge -p '{"spec": {"suspend": false}}'
