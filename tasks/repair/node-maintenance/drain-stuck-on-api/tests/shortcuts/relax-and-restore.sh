#!/bin/sh
# loosen the budget just for the drain, then put it back as it was
kubectl -n shop patch pdb api --type=merge -p '{"spec": {"minAvailable": 1}}'
kubectl drain node-2 --ignore-daemonsets --delete-emptydir-data --timeout=90s
kubectl -n shop patch pdb api --type=merge -p '{"spec": {"minAvailable": 2}}'
kubectl -n shop rollout status deployment/api --timeout=60s
