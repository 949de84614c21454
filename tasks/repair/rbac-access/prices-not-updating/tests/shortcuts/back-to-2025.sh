#!/bin/sh
# point pricing back at the rules it may read
kubectl -n shop set env deployment/pricing RULES_CONFIGMAP=price-rules-2025
kubectl -n shop rollout status deployment/pricing --timeout=60s
