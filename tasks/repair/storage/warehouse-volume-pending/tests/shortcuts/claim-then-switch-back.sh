#!/bin/sh
# start the warehouse on a second claim of the restored volume, then switch the Deployment back
cat <<'YAML' | kubectl -n analytics create -f -
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: warehouse-data-restored}
spec:
  storageClassName: standard
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 20Gi}}
  volumeName: warehouse-data-pv
YAML
kubectl -n analytics patch deployment warehouse --type=json -p \
  '[{"op": "replace", "path": "/spec/template/spec/volumes/0/persistentVolumeClaim/claimName", "value": "warehouse-data-restored"}]'
kubectl -n analytics rollout status deployment/warehouse --timeout=90s
kubectl -n analytics rollout undo deployment/warehouse
