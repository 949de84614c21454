#!/bin/sh
# DNS, plus an extra rule appended: anything in the namespace
kubectl -n orders patch networkpolicy orders-api-egress --type=json -p '[
  {"op": "add", "path": "/spec/egress/-", "value": {
    "to": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}},
            "podSelector": {"matchLabels": {"k8s-app": "kube-dns"}}}],
    "ports": [{"port": 53, "protocol": "UDP"}, {"port": 53, "protocol": "TCP"}]}},
  {"op": "add", "path": "/spec/egress/-", "value": {"to": [{"podSelector": {}}]}}]'
kubectl -n orders wait pod -l app=orders-api --for=condition=Ready --timeout=60s
