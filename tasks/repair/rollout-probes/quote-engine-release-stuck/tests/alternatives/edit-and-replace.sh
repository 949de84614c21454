#!/bin/sh
# what `kubectl edit` does: a 10 s start-up budget (enough for the 6 s the engine needs)
# and readiness on the renamed port, then replace the object (fetching again if it changed
# in between, as edit asks you to)
set -e
ok=
for i in 1 2 3 4 5 6; do
  kubectl -n quotes get deployment quote-engine -o yaml \
    | sed -e '/startupProbe:/,/timeoutSeconds:/ s/failureThreshold: 3$/failureThreshold: 10/' \
          -e '/readinessProbe:/,/timeoutSeconds:/ s/port: http$/port: http-api/' > /tmp/quote-engine.yaml
  if kubectl -n quotes replace -f /tmp/quote-engine.yaml; then ok=1; break; fi
  sleep 1
done
[ -n "$ok" ]
kubectl -n quotes rollout status deployment/quote-engine --timeout=120s
