#!/bin/sh
# a second Role and binding for the new rules
kubectl -n shop create role pricing-2026 --verb=get --resource=configmaps --resource-name=price-rules-2026
kubectl -n shop create rolebinding pricing-2026 --role=pricing-2026 --serviceaccount=shop:pricing
