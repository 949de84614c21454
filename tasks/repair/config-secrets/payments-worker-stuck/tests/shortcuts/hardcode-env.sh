#!/bin/sh
# copy the value straight into the Deployment
kubectl -n payments set env deployment/payments QUEUE_URL=redis://queue:6379
