#!/bin/sh
# Saturday's maintenance window suspended the nightly report and nobody resumed it
set -e
kubectl -n reporting patch cronjob nightly-report --type=merge -p '{"spec": {"suspend": true}}'
