#!/bin/sh
# kubectl replace --force of the claim, with the class fixed and the restored volume named
set -e
cat <<'YAML' | kubectl -n analytics replace --force -f -
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: warehouse-data, namespace: analytics}
spec:
  storageClassName: standard
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 20Gi}}
  volumeName: warehouse-data-pv
YAML
kubectl -n analytics rollout status deployment/warehouse --timeout=90s
