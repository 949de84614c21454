#!/usr/bin/env bash
# The main job, for now: start an embedded cluster with a simulated node, use it with
# stock kubectl (rollout, logs, exec, top, a broken image), ask netsim, stop it.
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
echo "== nodes (simulated kubelets)"
"$kubectl" get nodes -o wide
echo "== a Deployment rolls out on the simulated node"
"$kubectl" create deployment web --image=nginx:1.27 --replicas=2
"$kubectl" rollout status deployment/web --timeout=60s
"$kubectl" expose deployment web --port=80
"$kubectl" get deployments,replicasets,pods,endpointslices -o wide
echo "== logs, exec and metrics through the simulated kubelet"
"$kubectl" logs deployment/web
"$kubectl" run client --image=busybox:1.36 -- sleep infinity
"$kubectl" wait --for=condition=Ready pod/client --timeout=60s
"$kubectl" exec client -- nslookup web
for _ in $(seq 1 25); do
  "$kubectl" exec client -- wget -qO- http://web && break
  sleep 0.2
done
"$kubectl" top pods || true
echo "== a broken image, as a kubelet shows it"
"$kubectl" create deployment broken --image=nginx:1.99
sleep 3
"$kubectl" get pods -l app=broken
kubeproof net check --cluster "$name" --from default/client --to web:80
echo "== what the audit log recorded for the create"
kubeproof cluster logs "$name" audit | grep '"verb":"create"' | grep '"deployments"' | head -n 1 | cut -c1-300
echo
kubeproof cluster status "$name"
