#!/bin/sh
set -e
# orders-api logs: dial tcp: lookup orders-db ... i/o timeout: the egress policy allows the
# database but not DNS. Allow cluster DNS (kube-dns in kube-system) on 53.
kubectl -n orders patch networkpolicy orders-api-egress --type=json -p '[
  {"op": "add", "path": "/spec/egress/-", "value": {
    "to": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}},
            "podSelector": {"matchLabels": {"k8s-app": "kube-dns"}}}],
    "ports": [{"port": 53, "protocol": "UDP"}, {"port": 53, "protocol": "TCP"}]}}]'
kubectl -n orders wait pod -l app=orders-api --for=condition=Ready --timeout=60s
