#!/bin/sh
# resume by removing the suspend field (JSON patch), then the catch-up from the CronJob
set -e
kubectl -n reporting patch cronjob nightly-report --type=json \
  -p '[{"op": "remove", "path": "/spec/suspend"}]'
kubectl -n reporting create job nightly-report-catchup --from=cronjob/nightly-report
kubectl -n reporting wait --for=condition=complete job/nightly-report-catchup --timeout=60s
