#!/bin/sh
# reuse the existing toolbox: give it the node's root filesystem and host PID
kubectl -n platform-tools patch deployment toolbox --type=strategic -p '{"spec": {"template": {"spec": {
  "nodeSelector": {"kubernetes.io/hostname": "node-2"},
  "hostPID": true,
  "volumes": [{"name": "host", "hostPath": {"path": "/"}}],
  "containers": [{"name": "toolbox", "securityContext": {"privileged": true, "runAsNonRoot": false, "runAsUser": 0, "allowPrivilegeEscalation": true},
    "volumeMounts": [{"name": "host", "mountPath": "/host"}]}]}}}}'
kubectl -n platform-tools rollout status deployment/toolbox --timeout=60s
