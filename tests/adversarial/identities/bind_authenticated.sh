#!/bin/sh
# The fix by effect: a new Role that lists pods bound to every authenticated identity, the
# reporter among them.
. @LIB@
kubectl -n ledger create role pod-lister --verb=list --resource=pods
kubectl -n ledger create rolebinding pod-lister --role=pod-lister --group=system:authenticated
