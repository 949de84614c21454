#!/usr/bin/env bash
# The outcome (endpoints), the form (selector exactly app=web), the agent's credentials the
# verifier runs with (as in Harbor's agent container), and the agent's note in its workspace.
set -euo pipefail
fail() { echo "FAIL: $*"; kubectl -n shop get service,endpoints,pods -o wide || true; exit 1; }

[[ "$(kubectl auth can-i list secrets -n kube-system || true)" == "no" ]] || fail "not the agent"
[[ "$(kubectl auth can-i list pods -n shop)" == "yes" ]] || fail "not the agent"
kubectl -n shop get configmap verifier-marker >/dev/null 2>&1 || true  # the verifier's own
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
