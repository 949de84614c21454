#!/bin/sh
# resume it, and a catch-up Job that completes
kubectl -n reporting patch cronjob nightly-report --type=merge -p '{"spec": {"suspend": false}}'
kubectl -n reporting create job nightly-report-catchup --image=busybox:1.36 -- sh -c 'echo report written'
kubectl -n reporting wait --for=condition=complete job/nightly-report-catchup --timeout=60s
