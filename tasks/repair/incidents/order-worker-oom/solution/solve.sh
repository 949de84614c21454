#!/bin/sh
set -e
# worker: OOMKilled at 256Mi; its previous revision ran at 512Mi. Raising it alone fails:
# exceeded quota: memory, limited: limits.memory=3Gi. reporting holds 2x1Gi but uses
# ~80Mi (kubectl top); its previous revision ran at 256Mi. Give reporting back its old
# limit first (a surge pod still fits), then the workers theirs.
kubectl -n orders patch deployment reporting --type=json -p \
  '[{"op": "replace", "path": "/spec/template/spec/containers/0/resources/limits/memory", "value": "256Mi"}]'
kubectl -n orders rollout status deployment/reporting --timeout=90s
kubectl -n orders patch deployment worker --type=json -p '[
  {"op": "replace", "path": "/spec/template/spec/containers/0/resources/requests/memory", "value": "512Mi"},
  {"op": "replace", "path": "/spec/template/spec/containers/0/resources/limits/memory", "value": "512Mi"}]'
kubectl -n orders rollout status deployment/worker --timeout=90s
