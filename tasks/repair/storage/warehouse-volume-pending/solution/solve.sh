#!/bin/sh
set -e
# The pod: unbound immediate PersistentVolumeClaims. The claim: storageclass "fast-ssd"
# not found. The restored volume is warehouse-data-pv (dataset=warehouse), class standard.
# A claim's class cannot be changed: re-create the claim, pinned to the restored volume
# so it cannot bind to the empty scratch volume beside it.
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
kubectl -n analytics rollout status deployment/warehouse --timeout=90s
