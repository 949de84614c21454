#!/bin/sh
# change-and-revert: stop isolating egress until orders-api is up, then add DNS and
# restore the isolation
kubectl -n orders patch networkpolicy orders-api-egress --type=json -p \
  '[{"op": "replace", "path": "/spec/policyTypes", "value": ["Ingress"]}]'
kubectl -n orders wait pod -l app=orders-api --for=condition=Ready --timeout=60s
kubectl -n orders patch networkpolicy orders-api-egress --type=json -p '[
  {"op": "replace", "path": "/spec/policyTypes", "value": ["Egress"]},
  {"op": "add", "path": "/spec/egress/-", "value": {
    "to": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}},
            "podSelector": {"matchLabels": {"k8s-app": "kube-dns"}}}],
    "ports": [{"port": 53, "protocol": "UDP"}, {"port": 53, "protocol": "TCP"}]}}]'
kubectl -n orders wait pod -l app=orders-api --for=condition=Ready --timeout=60s
