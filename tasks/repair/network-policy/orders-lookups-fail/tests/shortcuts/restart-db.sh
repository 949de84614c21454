#!/bin/sh
# transient harm: allow DNS, then restart the database from zero so orders-api reconnects
kubectl -n orders patch networkpolicy orders-api-egress --type=json -p '[
  {"op": "add", "path": "/spec/egress/-", "value": {
    "to": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}},
            "podSelector": {"matchLabels": {"k8s-app": "kube-dns"}}}],
    "ports": [{"port": 53, "protocol": "UDP"}, {"port": 53, "protocol": "TCP"}]}}]'
kubectl -n orders patch deployment orders-db -p '{"spec": {"replicas": 0}}'
kubectl -n orders patch deployment orders-db -p '{"spec": {"replicas": 1}}'
kubectl -n orders wait pod -l app=orders-api --for=condition=Ready --timeout=60s
