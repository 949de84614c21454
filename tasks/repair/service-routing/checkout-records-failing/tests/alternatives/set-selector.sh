#!/bin/sh
# kubectl set selector: the labels the primary's pods carry
set -e
kubectl -n shop set selector service orders-db 'app=orders-db,role=primary'
kubectl -n shop rollout status deployment/checkout --timeout=60s
