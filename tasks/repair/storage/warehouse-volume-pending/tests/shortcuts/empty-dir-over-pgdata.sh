#!/bin/sh
# re-create the claim right, and keep the database files on a scratch emptyDir at PGDATA
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
  volumeName: warehouse-data-pv
YAML
kubectl -n analytics patch deployment warehouse --type=json -p '[
  {"op": "add", "path": "/spec/template/spec/volumes/-", "value": {"name": "pgdata", "emptyDir": {}}},
  {"op": "add", "path": "/spec/template/spec/containers/0/volumeMounts/-",
   "value": {"name": "pgdata", "mountPath": "/var/lib/postgresql/data/pgdata"}}]'
kubectl -n analytics rollout status deployment/warehouse --timeout=90s
