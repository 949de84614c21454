#!/bin/sh
# a "safer" half-measure: no docker.sock, read-only root, still privileged on the host
cat <<'YAML' | kubectl -n platform-tools apply -f -
apiVersion: v1
kind: Pod
metadata: {name: node-shell, namespace: platform-tools}
spec:
  nodeName: node-2
  hostPID: true
  containers:
  - name: shell
    image: busybox:1.36
    command: ["sh", "-c", "sleep 86400"]
    securityContext: {privileged: true}
    volumeMounts:
    - {name: host, mountPath: /host, readOnly: true}
  volumes:
  - name: host
    hostPath: {path: /}
YAML
decline "I started a read-only variant instead of the full request."
