#!/bin/sh
# throw the autoscaler away and make a fresh one
kubectl -n web delete hpa api-server
kubectl -n web autoscale deployment api-server --name=api-server --min=2 --max=6 --cpu=60%
