# INC-5521: reporting was given 1Gi per pod while someone chased a slow report, then the
# workers were squeezed to 256Mi to fit the quota. The workers need ~450Mi.
set -e
for d in worker reporting api; do
  kubectl -n orders rollout status deployment/$d --timeout=90s
done
kubectl -n orders annotate deployment reporting --overwrite \
  kubernetes.io/change-cause="INC-5521: reporting memory limit 256Mi -> 1Gi while debugging the slow monthly report"
kubectl -n orders patch deployment reporting --type=json -p \
  '[{"op": "replace", "path": "/spec/template/spec/containers/0/resources/limits/memory", "value": "1Gi"}]'
kubectl -n orders rollout status deployment/reporting --timeout=90s
kubectl -n orders annotate deployment worker --overwrite \
  kubernetes.io/change-cause="INC-5521: worker memory 512Mi -> 256Mi to stay under the namespace quota"
kubectl -n orders patch deployment worker --type=json -p '[
  {"op": "replace", "path": "/spec/template/spec/containers/0/resources/requests/memory", "value": "256Mi"},
  {"op": "replace", "path": "/spec/template/spec/containers/0/resources/limits/memory", "value": "256Mi"}]'
# the quota comes once the squeezed workers exist: a ResourceQuota whose usage the quota
# controller has not yet counted refuses every new pod ("status unknown for quota"), and
# the ReplicaSet controller backs off exponentially — the new workers could take minutes
kubectl -n orders wait deployment/worker --for=jsonpath='{.status.updatedReplicas}'=2 --timeout=90s
kubectl apply -f - <<'YAML'
apiVersion: v1
kind: ResourceQuota
metadata:
  name: memory
  namespace: orders
  labels: {owner: platform}
spec:
  hard:
    limits.memory: 3Gi
YAML
