#!/bin/sh
# give it the claim it asks for
cat <<'YAML' | kubectl -n media apply -f -
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: upload}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 5Gi}}
YAML
kubectl -n media rollout status deployment/thumbnailer --timeout=30s
