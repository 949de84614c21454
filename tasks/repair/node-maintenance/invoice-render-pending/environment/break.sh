# last night's maintenance on the render node finished, but nobody uncordoned it; then the
# new workload arrives
set -e
kubectl cordon render
kubectl annotate node render --overwrite \
  maintenance.example.com/last="2026-11-21 accelerator firmware upgrade, completed"
kubectl apply -f - <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata: {name: invoice-render, namespace: billing, labels: {app: invoice-render}}
spec:
  replicas: 2
  selector: {matchLabels: {app: invoice-render}}
  template:
    metadata: {labels: {app: invoice-render}}
    spec:
      nodeSelector: {workload: render}
      containers:
      - name: render
        image: nginx:1.27.3
        ports: [{containerPort: 80, name: http}]
        readinessProbe:
          httpGet: {path: /, port: http}
          periodSeconds: 2
YAML
