#!/bin/sh
# the auditor's ServiceAccount can already read pods
kubectl -n shop set serviceaccount deployment/stock-reporter pod-auditor
kubectl -n shop rollout status deployment/stock-reporter --timeout=60s
