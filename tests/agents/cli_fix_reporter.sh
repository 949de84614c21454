#!/bin/sh
# A CLI agent as a plain script: it reads its instruction, looks, fixes the reporter's Role
# and submits. Used by tests/agents/test_model_trials.py.
set -e
test -s "$KUBEPROOF_INSTRUCTION_FILE"
grep -q . < /dev/stdin
kubectl -n shop get role reporter -o jsonpath='{.rules[0].verbs}'
kubectl -n shop patch role reporter --type=json \
  -p '[{"op": "replace", "path": "/rules/0/verbs", "value": ["get", "list", "watch"]}]'
kubectl -n shop rollout status deployment/reporter --timeout=60s
submit "the reporter may list and watch pods again"
