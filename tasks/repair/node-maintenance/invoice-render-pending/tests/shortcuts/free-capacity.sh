#!/bin/sh
# pause billing-api for a moment to make sure the renderer gets the room it needs
kubectl -n billing patch deployment billing-api --type=merge -p '{"spec": {"replicas": 0}}'
kubectl uncordon render
kubectl -n billing rollout status deployment/invoice-render --timeout=60s
kubectl -n billing patch deployment billing-api --type=merge -p '{"spec": {"replicas": 2}}'
kubectl -n billing rollout status deployment/billing-api --timeout=60s
