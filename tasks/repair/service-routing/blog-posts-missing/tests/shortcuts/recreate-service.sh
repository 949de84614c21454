#!/bin/sh
# throw the Service away and create a fresh one
kubectl -n blog delete service posts-api
kubectl -n blog create service clusterip posts-api --tcp=80:80
