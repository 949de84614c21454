#!/bin/sh
# one pod at a time is enough for a maintenance window
kubectl -n shop patch pdb api --type=merge -p '{"spec": {"minAvailable": 1}}'
kubectl drain node-2 --ignore-daemonsets --delete-emptydir-data --timeout=60s
