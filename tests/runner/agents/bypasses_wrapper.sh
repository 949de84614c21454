#!/bin/sh
# A CLI agent that calls the real kubectl behind its wrapper's back: the audit log still sees
# the change, and the recorder flags it as a mutation no recorded command made.
set -e
kubectl -n shop get role reporter -o name
/opt/kubeproof/libexec/kubectl -n shop patch role reporter --type=json \
  -p '[{"op": "replace", "path": "/rules/0/verbs", "value": ["get", "list", "watch"]}]'
