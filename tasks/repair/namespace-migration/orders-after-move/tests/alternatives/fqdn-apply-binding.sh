#!/bin/sh
# the database by its fully-qualified name; the binding applied as a corrected manifest
set -e
kubectl -n shop set env deployment/orders-api \
  DATABASE_URL=postgres://orders-db.shop.svc.cluster.local:5432/orders
cat <<'YAML' | kubectl apply -f -
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: order-reporter, namespace: shop}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: order-reporter}
subjects: [{kind: ServiceAccount, name: order-reporter, namespace: shop}]
YAML
kubectl -n shop rollout status deployment/orders-api --timeout=60s
kubectl -n shop wait pod -l app=order-reporter --for=condition=Ready --timeout=60s
