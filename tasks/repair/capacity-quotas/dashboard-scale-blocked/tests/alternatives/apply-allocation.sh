#!/bin/sh
# apply the quota exactly as the approved allocation (CAP-771) writes it
set -e
cat <<'YAML' | kubectl apply -f -
apiVersion: v1
kind: ResourceQuota
metadata:
  name: compute
  namespace: analytics
  annotations: {platform.example.com/ticket: CAP-771}
spec:
  hard:
    pods: "10"
    requests.cpu: "4"
    requests.memory: 8Gi
YAML
kubectl -n analytics rollout status deployment/dashboard --timeout=90s
