#!/usr/bin/env bash
# The oracle: bash only ([[ ]], arrays), as Harbor runs it.
set -euo pipefail
prepare-kubeconfig
patch=('{"spec":{"selector":{"app":"web"}}}')
kubectl -n shop patch service web --type merge -p "${patch[0]}"
for _ in $(seq 1 60); do
  ready="$(kubectl -n shop get endpoints web -o jsonpath='{.subsets[*].addresses[*].ip}')"
  [[ -n "$ready" ]] && break
  sleep 1
done
echo "web Service selector set to app=web" > /app/NOTES.txt
