#!/bin/sh
# change-and-revert: run it every minute for a moment so a run happens now, then put the
# 03:00 schedule back
kubectl -n reporting patch cronjob nightly-report --type=merge \
  -p '{"spec": {"suspend": false, "schedule": "* * * * *"}}'
kubectl -n reporting create job nightly-report-catchup --from=cronjob/nightly-report
kubectl -n reporting wait --for=condition=complete job/nightly-report-catchup --timeout=60s
kubectl -n reporting patch cronjob nightly-report --type=merge -p '{"spec": {"schedule": "0 3 * * *"}}'
