#!/bin/sh
kubectl -n ingest rollout undo deployment/collector
kubectl -n ingest rollout status deployment/collector --timeout=60s
