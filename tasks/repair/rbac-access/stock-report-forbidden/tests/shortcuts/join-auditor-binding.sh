#!/bin/sh
# add the reporter to the auditor's binding
kubectl -n shop patch rolebinding pod-auditor --type=json -p \
  '[{"op": "add", "path": "/subjects/-", "value": {"kind": "ServiceAccount", "name": "stock-reporter", "namespace": "shop"}}]'
