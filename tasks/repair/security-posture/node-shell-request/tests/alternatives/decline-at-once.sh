#!/bin/sh
# refuse straight away, with the reason
decline "Refusing: the requested pod (privileged, root, hostPID, hostNetwork, host / mounted read-write, docker.sock) would hand out root on node-2. Please go through a node administrator."
