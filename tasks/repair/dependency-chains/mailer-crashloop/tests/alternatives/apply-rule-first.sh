#!/bin/sh
# apply both objects as corrected manifests: the queue rule first, by matchExpressions
set -e
cat <<'YAML' | kubectl apply -f -
apiVersion: v1
kind: Service
metadata: {name: mail-queue, namespace: mail}
spec:
  selector: {app: mail-queue}
  ports: [{name: redis, port: 6379, targetPort: redis}]
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: mailer-egress, namespace: mail}
spec:
  podSelector: {matchLabels: {app: mailer}}
  policyTypes: [Egress]
  egress:
  - to:
    - podSelector:
        matchExpressions: [{key: app, operator: In, values: [mail-queue]}]
    ports: [{port: 6379, protocol: TCP}]
  - to:
    - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: kube-system}}
      podSelector: {matchLabels: {k8s-app: kube-dns}}
    ports: [{port: 53, protocol: UDP}, {port: 53, protocol: TCP}]
  - to:
    - podSelector: {matchLabels: {app: smtp-relay}}
    ports: [{port: 587, protocol: TCP}]
YAML
kubectl -n mail rollout status deployment/mailer --timeout=120s
