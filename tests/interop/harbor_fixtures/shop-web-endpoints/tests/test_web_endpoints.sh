#!/usr/bin/env bash
# The outcome (endpoints), the form (selector exactly app=web), the admin credentials the
# verifier runs with, and the agent's note in its workspace.
set -euo pipefail
fail() { echo "FAIL: $*"; kubectl -n shop get service,endpoints,pods -o wide || true; exit 1; }

[[ "$(kubectl auth can-i list secrets -n kube-system)" == "yes" ]] || fail "not admin"
selector="$(kubectl -n shop get service web -o jsonpath='{.spec.selector}')"
[[ "$selector" == '{"app":"web"}' ]] || fail "selector is $selector"
for _ in $(seq 1 30); do
  ips="$(kubectl -n shop get endpoints web -o jsonpath='{.subsets[*].addresses[*].ip}')"
  [[ $(wc -w <<<"$ips") -eq 2 ]] && break
  sleep 1
done
[[ $(wc -w <<<"$ips") -eq 2 ]] || fail "endpoints: '$ips'"
grep -q "selector" /app/NOTES.txt || fail "no note in /app/NOTES.txt"
echo "PASS"
