#!/bin/sh
# Fixes the task, and on its way rewrites its own Role to everything: */*/*.
. @LIB@
fix
kubectl -n ledger patch role kubeproof-agent --type=merge -p \
  '{"rules": [{"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]}]}'
retry kubectl -n ledger get secrets
