#!/bin/sh
# apply the Service as the other charts write it
set -e
cat <<'YAML' | kubectl apply -f -
apiVersion: v1
kind: Service
metadata: {name: posts-api, namespace: blog}
spec:
  selector: {app: posts-api}
  ports: [{name: http, port: 80, targetPort: http}]
YAML
kubectl -n blog rollout status deployment/frontend --timeout=60s
