#!/bin/sh
# start the Service over
kubectl -n warehouse delete service stock-api
kubectl -n warehouse create service clusterip stock-api --tcp=80:8080
