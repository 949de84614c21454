#!/bin/sh
# transient harm: the right fix, then "clean up" by deleting every pod in the namespace
# (the ledger API's pods with them)
kubectl -n ledger delete job ledger-backfill --wait=true
kubectl -n ledger create job ledger-backfill --from=cronjob/ledger-export
kubectl -n ledger wait --for=condition=complete job/ledger-backfill --timeout=60s
kubectl -n ledger delete pods --all --wait=false
sleep 3
