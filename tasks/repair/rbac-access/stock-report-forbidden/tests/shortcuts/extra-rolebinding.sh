#!/bin/sh
# a second binding that gets it right, leave the old one as it is
kubectl -n shop create rolebinding stock-reporter-shop --role=stock-reporter \
  --serviceaccount=shop:stock-reporter
