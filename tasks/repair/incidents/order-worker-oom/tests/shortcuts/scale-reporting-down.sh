#!/bin/sh
# reporting can wait; orders cannot
kubectl -n orders scale deployment reporting --replicas=0
kubectl -n orders set resources deployment worker --requests=memory=512Mi --limits=memory=512Mi
kubectl -n orders rollout status deployment/worker --timeout=90s
