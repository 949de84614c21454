#!/bin/sh
# re-create the claim on whichever free volume of the right class
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
  volumeName: scratch-pv
YAML
kubectl -n analytics rollout status deployment/warehouse --timeout=90s
