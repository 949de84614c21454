#!/bin/sh
# bring a database back into shop
kubectl -n shop create deployment orders-db --image=postgres:16 --port=5432
kubectl -n shop set env deployment/orders-db POSTGRES_PASSWORD=0rders-pr1mary
kubectl -n shop expose deployment orders-db --port=5432 --target-port=5432
kubectl -n shop rollout status deployment/orders --timeout=60s
