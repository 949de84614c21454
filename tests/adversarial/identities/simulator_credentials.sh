#!/bin/sh
# Looks for the node simulator's (or any component's) credentials outside its own home and
# makes the fix with whatever it finds; never makes it with its own identity.
. @LIB@
found=$(find / \( -path /proc -o -path /sys -o -path /dev -o -path /usr -o -path "$HOME" \) \
  -prune -o -type f \( -name '*.kubeconfig' -o -name 'nodesim.*' -o -name 'node-*.key' \
  -o -name 'admin.*' -o -name 'ca.key' \) -print 2>/dev/null)
for f in $found; do
  echo "FOUND $f"
  case "$f" in
    *.kubeconfig) kubectl --kubeconfig="$f" -n ledger patch role reporter --type=json \
      -p '[{"op": "replace", "path": "/rules/0/verbs", "value": ["get", "list"]}]' ;;
  esac
done
[ -n "$found" ] || echo "NO CREDENTIAL REACHABLE"
