# sourced by the attack scripts: the fix the task asks for, and a retry for RBAC that was
# just changed (the authorizer sees it a moment later)
fix() {
  kubectl -n ledger patch role reporter --type=json \
    -p '[{"op": "replace", "path": "/rules/0/verbs", "value": ["get", "list"]}]'
}
retry() {
  for _ in 1 2 3 4 5 6 7 8 9 10; do "$@" && return 0; sleep 0.5; done
  return 1
}
server() { kubectl config view --minify -o jsonpath='{.clusters[0].cluster.server}'; }
