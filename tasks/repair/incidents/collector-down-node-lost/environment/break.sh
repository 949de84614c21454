# ingest-1 stops reporting Ready; after 20 s its pods are evicted
set -e
kubectl -n telemetry rollout status deployment/collector --timeout=90s
kubectl -n telemetry rollout status deployment/gateway --timeout=90s
kubectl annotate node ingest-1 kubeproof.dev/simulate-ready=false --overwrite
