#!/usr/bin/env bash
# The main job, for now: start an embedded cluster, use it with stock kubectl, stop it.
set -euo pipefail

bin_dir=$(kubeproof version -o json | python3 -c 'import json,sys; print(json.load(sys.stdin)["binDir"])')
kubectl="$bin_dir/kubectl"

info=$(kubeproof cluster up -o json)
name=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["name"])' "$info")
export KUBECONFIG=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["kubeconfig"])' "$info")
trap 'kubeproof cluster down "$name"' EXIT

echo "== cluster $name"
echo "$info"
echo "== kubectl version"
"$kubectl" version
echo "== namespaces"
"$kubectl" get namespaces
echo "== a Deployment gets a ReplicaSet from the controller manager"
"$kubectl" create deployment web --image=nginx:1.27 --replicas=2
for _ in $(seq 1 50); do
  "$kubectl" get replicasets -l app=web -o name | grep -q replicaset && break
  sleep 0.2
done
"$kubectl" get deployments,replicasets,pods -o wide
echo "(pods stay Pending until the node simulator lands)"
echo "== what the audit log recorded for the create"
kubeproof cluster logs "$name" audit | grep '"verb":"create"' | grep '"deployments"' | head -n 1 | cut -c1-300
echo
kubeproof cluster status "$name"
