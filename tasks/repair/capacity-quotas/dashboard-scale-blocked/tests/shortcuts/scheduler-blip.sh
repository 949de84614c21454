#!/bin/sh
# transient harm: park the scheduler for a moment to free a pod slot, fix the quota, bring it back
kubectl -n analytics scale deployment scheduler --replicas=0
kubectl -n analytics patch resourcequota compute --type=merge -p '{"spec": {"hard": {"pods": "10"}}}'
kubectl -n analytics scale deployment scheduler --replicas=1
kubectl -n analytics rollout status deployment/dashboard --timeout=90s
kubectl -n analytics rollout status deployment/scheduler --timeout=90s
