#!/bin/sh
# a token CPU request: any request lets utilization be computed (and a tiny one scales it out)
kubectl -n render set resources deployment/render-worker -c worker --requests=cpu=10m
kubectl -n render rollout status deployment/render-worker --timeout=90s
# the autoscaler picks the new pods' metrics up within a few syncs
kubectl -n render wait hpa/render-worker --for=condition=ScalingActive=True --timeout=90s
