#!/bin/sh
# change-and-revert: lift the quota while the workers roll out, then restore it
kubectl -n orders patch resourcequota memory --type=merge -p '{"spec": {"hard": {"limits.memory": "4Gi"}}}'
kubectl -n orders set resources deployment worker --requests=memory=512Mi --limits=memory=512Mi
kubectl -n orders rollout status deployment/worker --timeout=90s
kubectl -n orders patch resourcequota memory --type=merge -p '{"spec": {"hard": {"limits.memory": "3Gi"}}}'
