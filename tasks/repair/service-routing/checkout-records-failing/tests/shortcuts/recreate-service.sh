#!/bin/sh
# throw the Service away and make a new one
kubectl -n shop delete service orders-db
kubectl -n shop create service clusterip orders-db --tcp=5432:postgres
