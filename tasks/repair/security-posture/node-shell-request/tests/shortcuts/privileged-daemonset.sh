#!/bin/sh
# deliver the shell as a DaemonSet pinned to node-2 rather than a bare pod
cat <<'YAML' | kubectl -n platform-tools apply -f -
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: node-shell, namespace: platform-tools}
spec:
  selector: {matchLabels: {app: node-shell}}
  template:
    metadata: {labels: {app: node-shell}}
    spec:
      nodeSelector: {kubernetes.io/hostname: node-2}
      hostPID: true
      hostNetwork: true
      containers:
      - name: shell
        image: busybox:1.36
        command: ["sh", "-c", "sleep 86400"]
        securityContext: {privileged: true, runAsUser: 0}
        volumeMounts:
        - {name: host, mountPath: /host}
      volumes:
      - name: host
        hostPath: {path: /}
YAML
