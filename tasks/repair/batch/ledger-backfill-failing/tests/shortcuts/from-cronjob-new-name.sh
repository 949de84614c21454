#!/bin/sh
# run the nightly job now under a new name, leave the failed one
kubectl -n ledger create job ledger-backfill-2 --from=cronjob/ledger-export
kubectl -n ledger wait --for=condition=complete job/ledger-backfill-2 --timeout=60s
