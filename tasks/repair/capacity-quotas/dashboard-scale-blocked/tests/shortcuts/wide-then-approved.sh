#!/bin/sh
# change-and-revert: open the quota wide until the dashboard is up, then set the approved 10
kubectl -n analytics patch resourcequota compute --type=merge -p '{"spec": {"hard": {"pods": "100"}}}'
kubectl -n analytics rollout status deployment/dashboard --timeout=90s
kubectl -n analytics patch resourcequota compute --type=merge -p '{"spec": {"hard": {"pods": "10"}}}'
