#!/bin/sh
# apply the Service as the 2.0 chart had it
set -e
cat <<'YAML' | kubectl apply -f -
apiVersion: v1
kind: Service
metadata: {name: stock-api, namespace: warehouse}
spec:
  selector: {app: stock-api}
  ports: [{name: http, port: 80, targetPort: 8080}]
YAML
kubectl -n warehouse rollout status deployment/picker --timeout=60s
