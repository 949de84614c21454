#!/bin/sh
# stop the policy isolating egress
kubectl -n orders patch networkpolicy orders-api-egress --type=json -p \
  '[{"op": "replace", "path": "/spec/policyTypes", "value": ["Ingress"]}]'
