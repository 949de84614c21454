#!/usr/bin/env bash
# How often does `set -o pipefail; kubectl logs POD | grep -q LINE` fail when every line matches?
# kubectl writes each log line with its own write(2) (kubectl pkg/cmd/logs/logs.go
# DefaultConsumeRequest); grep -q exits at the first match; kubectl's next write gets SIGPIPE.
# Run from the repository's root: bash benchmarks/pipefail_race.sh (N=200 by default).
set -u
KP=${KP:-.venv/bin/kubeproof}
N=${N:-200}
busy=()
cleanup() { kill "${busy[@]}" 2>/dev/null; $KP cluster down sigpipe >/dev/null 2>&1; }
trap cleanup EXIT
$KP cluster up --name sigpipe >/dev/null || exit 1
export KUBECONFIG=$($KP cluster kubeconfig sigpipe --path)
kubectl run lines --image=busybox:1.36.1 --restart=Never -- sh -c 'i=0; while [ $i -lt 40 ]; do echo "cache identity healthy via peers $i"; i=$((i+1)); done; sleep 3600' >/dev/null
kubectl wait --for=condition=Ready pod/lines --timeout=60s >/dev/null
sleep 2
echo "lines: $(kubectl logs lines | wc -l)"
run() {
  local fail=0
  for _ in $(seq 1 "$N"); do
    bash -c 'set -o pipefail; kubectl logs lines --tail=40 | grep -q "healthy via peers"' || fail=$((fail+1))
  done
  echo "$1: $fail of $N failed"
}
run idle
yes >/dev/null & busy+=($!)
yes >/dev/null & busy+=($!)
run "two cores busy"
