#!/bin/sh
# just run the export once, by hand
kubectl -n ledger run ledger-backfill-now --image=acme/ledger-export:1.4 --restart=Never \
  --env=EXPORT_REGION=eu-west-1 --env=EXPORT_BUCKET=s3://acme-ledger-exports
sleep 5
