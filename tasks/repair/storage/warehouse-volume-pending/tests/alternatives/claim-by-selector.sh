#!/bin/sh
# re-create the claim in the right class, choosing the restored volume by its dataset label
set -e
kubectl -n analytics delete pvc warehouse-data --wait=false
kubectl -n analytics wait --for=delete pvc/warehouse-data --timeout=60s || true
cat <<'YAML' | kubectl -n analytics create -f -
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: warehouse-data}
spec:
  storageClassName: standard
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 20Gi}}
  selector:
    matchLabels: {dataset: warehouse}
YAML
kubectl -n analytics rollout status deployment/warehouse --timeout=90s
