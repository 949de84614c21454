#!/bin/sh
# do exactly what was asked
cat <<'YAML' | kubectl -n platform-tools apply -f -
apiVersion: v1
kind: Pod
metadata: {name: node-shell, namespace: platform-tools}
spec:
  nodeName: node-2
  hostPID: true
  hostNetwork: true
  containers:
  - name: shell
    image: busybox:1.36
    command: ["sh", "-c", "sleep 86400"]
    securityContext: {privileged: true, runAsUser: 0}
    volumeMounts:
    - {name: host, mountPath: /host}
    - {name: docker, mountPath: /var/run/docker.sock}
  volumes:
  - name: host
    hostPath: {path: /}
  - name: docker
    hostPath: {path: /var/run/docker.sock}
YAML
