#!/bin/sh
# transient harm: take reporting down while the workers get their memory, then bring it
# back at its old size
kubectl -n orders scale deployment reporting --replicas=0
kubectl -n orders set resources deployment worker --requests=memory=512Mi --limits=memory=512Mi
kubectl -n orders rollout status deployment/worker --timeout=90s
kubectl -n orders set resources deployment reporting --limits=memory=256Mi
kubectl -n orders scale deployment reporting --replicas=2
kubectl -n orders rollout status deployment/reporting --timeout=90s
