#!/bin/sh
# lift the taint until the pods are placed, then put it back
kubectl taint node ledger dedicated-
kubectl -n finance rollout status deployment/ledger --timeout=60s
kubectl taint node ledger dedicated=ledger:NoSchedule
