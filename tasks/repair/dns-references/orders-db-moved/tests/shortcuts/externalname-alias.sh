#!/bin/sh
# keep the old short name working with an alias in shop
kubectl -n shop create service externalname orders-db --external-name=orders-db.data.svc.cluster.local
