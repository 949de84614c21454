#!/bin/sh
# the yearly rollover: pricing is switched to the 2026 rules, the Role is not. Its reloads
# are refused; it keeps serving the 2025 prices and reports the refusals as events.
set -e
kubectl -n shop rollout status deployment/pricing --timeout=60s
kubectl -n shop set env deployment/pricing RULES_CONFIGMAP=price-rules-2026
kubectl -n shop rollout status deployment/pricing --timeout=60s
first=$(date -u -d '-40 min' +%Y-%m-%dT%H:%M:%SZ)
last=$(date -u +%Y-%m-%dT%H:%M:%SZ)
uid=$(kubectl -n shop get deployment pricing -o jsonpath='{.metadata.uid}')
kubectl create -f - <<YAML
apiVersion: v1
kind: Event
metadata: {name: pricing.rules-reload, namespace: shop}
involvedObject: {apiVersion: apps/v1, kind: Deployment, name: pricing, namespace: shop, uid: $uid}
type: Warning
reason: RulesReloadFailed
message: 'cannot load price rules, keeping the rules loaded before: configmaps "price-rules-2026" is forbidden: User "system:serviceaccount:shop:pricing" cannot get resource "configmaps" in API group "" in the namespace "shop"'
source: {component: pricing}
firstTimestamp: "$first"
lastTimestamp: "$last"
count: 41
YAML
