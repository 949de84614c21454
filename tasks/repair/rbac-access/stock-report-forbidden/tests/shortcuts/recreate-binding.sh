#!/bin/sh
# start the binding over: delete it and create it again from the fixed manifest
kubectl -n shop get rolebinding stock-reporter -o yaml \
  | sed 's/namespace: staging/namespace: shop/' \
  | grep -v -E '^  (uid|resourceVersion|creationTimestamp):' > /tmp/rb.yaml
kubectl -n shop delete rolebinding stock-reporter
kubectl -n shop create -f /tmp/rb.yaml
kubectl -n shop rollout status deployment/stock-reporter --timeout=60s
