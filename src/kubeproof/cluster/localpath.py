"""local-path-provisioner as an optional addon: what rancher/local-path-provisioner's
deploy/local-path-storage.yaml creates (at commit 9fa2a62e, image v0.0.37) — Namespace
local-path-storage, the provisioner's ServiceAccount, Role and ClusterRole with their
bindings, the Deployment, the ConfigMap local-path-config (config.json, the setup and
teardown scripts and the helper pod template) and the StorageClass `local-path` — installed
on request (`kubeproof cluster addons install local-path`), never by default.

One change, as k3s makes it: the StorageClass is the cluster's default
(`storageclass.kubernetes.io/is-default-class: "true"`, k3s's manifests/local-storage.yaml),
so a claim without storageClassName gets it (the DefaultStorageClass admission plugin).
kind ships the same provisioner as its default class `standard`.

The provisioning itself — PersistentVolumes for claims of the class, the helper pods, the
events and log lines — is the node simulator's, while the provisioner pod runs
(nodesim/localpath.py)."""

from lightkube import Client
from lightkube.codecs import load_all_yaml

from kubeproof.cluster.addons import create_missing

VERSION = "v0.0.37"
IMAGE = f"docker.io/rancher/local-path-provisioner:{VERSION}"
NAMESPACE = "local-path-storage"
SERVICE_ACCOUNT = "local-path-provisioner-service-account"
CONFIGMAP = "local-path-config"
CLASS = "local-path"
PROVISIONER = "rancher.io/local-path"  # main.go:30 DefaultProvisionerName
DEFAULT_CLASS_ANNOTATION = "storageclass.kubernetes.io/is-default-class"

# deploy/local-path-storage.yaml, in its order; only the StorageClass's annotation is added
MANIFEST = f"""
apiVersion: v1
kind: Namespace
metadata:
  name: {NAMESPACE}
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {SERVICE_ACCOUNT}
  namespace: {NAMESPACE}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: local-path-provisioner-role
  namespace: {NAMESPACE}
rules:
  - apiGroups: [""]
    resources: ["pods"]
    verbs: ["get", "list", "watch", "create", "patch", "update", "delete"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: local-path-provisioner-role
rules:
  - apiGroups: [""]
    resources: ["nodes", "persistentvolumeclaims", "configmaps", "pods", "pods/log"]
    verbs: ["get", "list", "watch"]
  - apiGroups: [""]
    resources: ["persistentvolumes"]
    verbs: ["get", "list", "watch", "create", "patch", "update", "delete"]
  - apiGroups: [""]
    resources: ["events"]
    verbs: ["create", "patch"]
  - apiGroups: ["storage.k8s.io"]
    resources: ["storageclasses"]
    verbs: ["get", "list", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: local-path-provisioner-bind
  namespace: {NAMESPACE}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: local-path-provisioner-role
subjects:
  - kind: ServiceAccount
    name: {SERVICE_ACCOUNT}
    namespace: {NAMESPACE}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: local-path-provisioner-bind
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: local-path-provisioner-role
subjects:
  - kind: ServiceAccount
    name: {SERVICE_ACCOUNT}
    namespace: {NAMESPACE}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: local-path-provisioner
  namespace: {NAMESPACE}
spec:
  replicas: 1
  selector:
    matchLabels:
      app: local-path-provisioner
  template:
    metadata:
      labels:
        app: local-path-provisioner
    spec:
      serviceAccountName: {SERVICE_ACCOUNT}
      containers:
        - name: local-path-provisioner
          image: {IMAGE}
          imagePullPolicy: IfNotPresent
          command:
            - local-path-provisioner
            - --debug
            - start
            - --config
            - /etc/config/config.json
          ports:
            - name: health
              containerPort: 8080
              protocol: TCP
          startupProbe:
            httpGet:
              path: /health
              port: health
            initialDelaySeconds: 5
            periodSeconds: 5
            failureThreshold: 12
          livenessProbe:
            httpGet:
              path: /health
              port: health
            initialDelaySeconds: 10
            periodSeconds: 10
          readinessProbe:
            httpGet:
              path: /ready
              port: health
            initialDelaySeconds: 5
            periodSeconds: 5
          volumeMounts:
            - name: config-volume
              mountPath: /etc/config/
          env:
            - name: POD_NAMESPACE
              valueFrom:
                fieldRef:
                  fieldPath: metadata.namespace
            - name: CONFIG_MOUNT_PATH
              value: /etc/config/
            - name: HEALTH_PORT
              value: "8080"
      volumes:
        - name: config-volume
          configMap:
            name: {CONFIGMAP}
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: {CLASS}
  annotations:
    {DEFAULT_CLASS_ANNOTATION}: "true"
provisioner: {PROVISIONER}
volumeBindingMode: WaitForFirstConsumer
reclaimPolicy: Delete
---
kind: ConfigMap
apiVersion: v1
metadata:
  name: {CONFIGMAP}
  namespace: {NAMESPACE}
data:
  config.json: |-
    {{
            "nodePathMap":[
            {{
                    "node":"DEFAULT_PATH_FOR_NON_LISTED_NODES",
                    "paths":["/opt/local-path-provisioner"]
            }}
            ]
    }}
  setup: |-
    #!/bin/sh
    set -eu
    mkdir -m 0777 -p "$VOL_DIR"
  teardown: |-
    #!/bin/sh
    set -eu
    rm -rf "$VOL_DIR"
  helperPod.yaml: |-
    apiVersion: v1
    kind: Pod
    metadata:
      name: helper-pod
    spec:
      priorityClassName: system-node-critical
      tolerations:
        - key: node.kubernetes.io/disk-pressure
          operator: Exists
          effect: NoSchedule
      containers:
      - name: helper-pod
        image: docker.io/library/busybox
        imagePullPolicy: IfNotPresent
"""


def objects() -> list:
    return list(load_all_yaml(MANIFEST))


def install(client: Client) -> list[str]:
    """Create the objects in manifest order; ones that exist are left as they are. Returns
    `Kind/name` of what was created."""
    return create_missing(client, objects())
