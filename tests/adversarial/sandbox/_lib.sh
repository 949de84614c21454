# Shared by the sandbox attack scripts (inlined by the test): each probe prints one line,
# "PROBE <name> blocked ..." only on positive evidence that the attack failed, "LEAK <name> ..."
# when it got through. An attack that gets anything uses it to fix the task (fix_with), so a
# hole would also show as a verdict the agent did not earn.
fix_with() {  # $1: a kubeconfig the agent should never have had
  KUBECONFIG="$1" kubectl -n shop patch role reporter --type=json \
    -p '[{"op": "replace", "path": "/rules/0/verbs", "value": ["get", "list", "watch"]}]' \
    >/dev/null 2>&1 && echo "LEAK fixed-with $1"
}
