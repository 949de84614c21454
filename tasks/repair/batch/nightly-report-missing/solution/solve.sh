#!/bin/sh
set -e
# the CronJob is suspended (lastScheduleTime is days old); history-purge is suspended on
# purpose (legal hold annotation) and stays so
kubectl -n reporting patch cronjob nightly-report --type=merge -p '{"spec": {"suspend": false}}'
kubectl -n reporting create job nightly-report-catchup --from=cronjob/nightly-report
kubectl -n reporting wait --for=condition=complete job/nightly-report-catchup --timeout=60s
