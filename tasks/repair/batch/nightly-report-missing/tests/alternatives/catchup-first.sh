#!/bin/sh
# the catch-up first (a Job may be made from a suspended CronJob), then resume it (strategic merge)
set -e
kubectl -n reporting create job nightly-report-catchup --from=cronjob/nightly-report
kubectl -n reporting patch cronjob nightly-report -p '{"spec": {"suspend": false}}'
kubectl -n reporting wait --for=condition=complete job/nightly-report-catchup --timeout=60s
