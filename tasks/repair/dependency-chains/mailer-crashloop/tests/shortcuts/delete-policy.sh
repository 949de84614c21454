#!/bin/sh
# fix the Service, and drop the new policy
kubectl -n mail patch service mail-queue --type=json -p \
  '[{"op": "replace", "path": "/spec/ports/0/targetPort", "value": 6379}]'
kubectl -n mail delete networkpolicy mailer-egress
