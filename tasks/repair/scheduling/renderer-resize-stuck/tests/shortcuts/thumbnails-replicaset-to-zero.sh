#!/bin/sh
# make room by scaling the thumbnails ReplicaSet (not its Deployment) to zero, fix, and let the controller bring it back
rs=$(kubectl -n media get rs -l app=thumbnails -o jsonpath='{.items[0].metadata.name}')
kubectl -n media scale rs "$rs" --replicas=0 || kubectl -n media patch rs "$rs" --type=merge -p '{"spec": {"replicas": 0}}'
kubectl -n media patch deployment renderer --type=json -p '[{"op": "replace", "path": "/spec/template/spec/containers/0/resources/requests/cpu", "value": "500m"}]'
kubectl -n media rollout status deployment/renderer --timeout=60s
kubectl -n media rollout status deployment/thumbnails --timeout=60s
