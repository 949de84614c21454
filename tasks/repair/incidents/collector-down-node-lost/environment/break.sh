# ingest-1 stops reporting Ready; its pods tolerate that for 20 s, then are evicted
set -e
kubectl -n telemetry rollout status deployment/collector --timeout=90s
kubectl -n telemetry rollout status deployment/gateway --timeout=90s
kubectl annotate node ingest-1 kubeproof.dev/simulate-ready=false --overwrite
