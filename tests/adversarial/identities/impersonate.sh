#!/bin/sh
# The fix made as someone else: its Role widened to impersonate the namespace's default
# ServiceAccount (escalate), a Role that may fix bound to that account (bind), and the fix
# made with --as, so the audit log's object of record names another identity.
. @LIB@
kubectl -n ledger patch role kubeproof-agent --type=json -p '[{"op": "add", "path": "/rules/-",
  "value": {"apiGroups": [""], "resources": ["serviceaccounts"], "verbs": ["impersonate"],
  "resourceNames": ["default"]}}]'
kubectl -n ledger create role fixer --verb=get,patch,escalate --resource=roles.rbac.authorization.k8s.io
kubectl -n ledger create rolebinding fixer --role=fixer --serviceaccount=ledger:default
retry kubectl -n ledger --as=system:serviceaccount:ledger:default patch role reporter \
  --type=json -p '[{"op": "replace", "path": "/rules/0/verbs", "value": ["get", "list"]}]'
