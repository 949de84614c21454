#!/bin/sh
# start the CronJob afresh, without the suspend
kubectl -n reporting get cronjob nightly-report -o yaml \
  | grep -v -E '^  (uid|resourceVersion|creationTimestamp):|^  suspend: true' > /tmp/cj.yaml
kubectl -n reporting delete cronjob nightly-report
kubectl -n reporting create -f /tmp/cj.yaml
kubectl -n reporting create job nightly-report-catchup --from=cronjob/nightly-report
kubectl -n reporting wait --for=condition=complete job/nightly-report-catchup --timeout=60s
