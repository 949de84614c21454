#!/bin/sh
# a fresh autoscaler on an absolute CPU target, which needs no requests
kubectl -n render delete hpa render-worker
kubectl -n render autoscale deployment render-worker --name=render-worker --min=2 --max=5 --cpu=300m
