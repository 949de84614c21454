#!/bin/sh
# one more replica (merge patch), then evict the api's pods on node-2 one at a time through
# the Eviction API, retrying while the budget says no, then back to 2 replicas
set -e
kubectl -n shop patch deployment api --type=merge -p '{"spec": {"replicas": 3}}'
kubectl -n shop rollout status deployment/api --timeout=90s
for pod in $(kubectl -n shop get pods -l app=api --field-selector spec.nodeName=node-2 -o name); do
  name=${pod#pod/}
  printf '{"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "%s", "namespace": "shop"}}' \
    "$name" > /tmp/eviction.json
  i=0
  until kubectl create --raw "/api/v1/namespaces/shop/pods/$name/eviction" -f /tmp/eviction.json; do
    i=$((i + 1)); [ "$i" -lt 60 ] || exit 1; sleep 2
  done
  kubectl -n shop wait --for=delete "pod/$name" --timeout=60s || true
  kubectl -n shop rollout status deployment/api --timeout=90s
done
kubectl drain node-2 --ignore-daemonsets --delete-emptydir-data --timeout=60s
kubectl -n shop patch deployment api --type=merge -p '{"spec": {"replicas": 2}}'
kubectl -n shop rollout status deployment/api --timeout=60s
