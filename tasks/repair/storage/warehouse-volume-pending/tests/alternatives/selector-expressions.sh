#!/bin/sh
# re-create the claim with both the volume's name and a matchExpressions selector
set -e
kubectl -n analytics delete pvc warehouse-data --timeout=60s || true
cat <<'YAML' | kubectl -n analytics apply -f -
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: warehouse-data}
spec:
  storageClassName: standard
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 20Gi}}
  volumeName: warehouse-data-pv
  selector:
    matchExpressions: [{key: dataset, operator: In, values: [warehouse]}]
YAML
kubectl -n analytics rollout status deployment/warehouse --timeout=90s
