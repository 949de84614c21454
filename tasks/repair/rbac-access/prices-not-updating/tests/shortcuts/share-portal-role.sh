#!/bin/sh
# the partner portal's Role already reads ConfigMaps by name: add the 2026 rules to it and
# bind pricing there too
kubectl -n shop patch role partner-portal --type=json \
  -p '[{"op": "add", "path": "/rules/0/resourceNames/-", "value": "price-rules-2026"}]'
kubectl -n shop patch rolebinding partner-portal --type=json \
  -p '[{"op": "add", "path": "/subjects/-", "value": {"kind": "ServiceAccount", "name": "pricing", "namespace": "shop"}}]'
