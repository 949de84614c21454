#!/bin/sh
# any database will do
kubectl -n shop set env deployment/checkout DATABASE_URL=postgres://orders-db-replica:5432/orders
