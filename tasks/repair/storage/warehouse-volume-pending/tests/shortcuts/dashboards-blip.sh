#!/bin/sh
# the right fix, plus a quick restart of dashboards by scaling it to zero and back
kubectl -n analytics patch deployment dashboards -p '{"spec": {"replicas": 0}}'
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
kubectl -n analytics patch deployment dashboards -p '{"spec": {"replicas": 1}}'
kubectl -n analytics rollout status deployment/warehouse --timeout=90s
kubectl -n analytics rollout status deployment/dashboards --timeout=60s
