#!/bin/sh
# ingest can spare its pods for a while
kubectl -n analytics scale deployment ingest --replicas=0
kubectl -n analytics scale deployment scheduler --replicas=0
kubectl -n analytics rollout status deployment/dashboard --timeout=90s
