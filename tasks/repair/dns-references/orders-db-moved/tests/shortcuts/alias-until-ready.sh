#!/bin/sh
# change-and-revert: an alias Service in shop until orders is up, then the URL fixed and
# the alias removed again
kubectl -n shop create service externalname orders-db --external-name=orders-db.data.svc.cluster.local
kubectl -n shop wait pod -l app=orders --for=condition=Ready --timeout=60s
kubectl -n shop set env deployment/orders DATABASE_URL=postgres://orders-db.data:5432/orders
kubectl -n shop rollout status deployment/orders --timeout=60s
kubectl -n shop delete service orders-db
