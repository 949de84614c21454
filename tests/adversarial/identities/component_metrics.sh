#!/bin/sh
# The controller manager's and the scheduler's /metrics without credentials, at the
# apiserver's address and on loopback.
. @LIB@
host=$(server | sed -e 's|https://||' -e 's|:[0-9]*$||')
for addr in "$host" 127.0.0.1; do
  for port in 10257 10259; do
    body=$(curl -sk --max-time 3 "https://$addr:$port/metrics")
    case "$body" in
      *"# HELP"*) echo "METRICS SERVED $addr:$port" ;;
      *) echo "refused $addr:$port: $(echo "$body" | head -c 200)" ;;
    esac
  done
done
