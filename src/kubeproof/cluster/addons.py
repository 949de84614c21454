"""The system workloads a kubeadm cluster runs in kube-system: CoreDNS, as `kubeadm init`'s
addon phase installs it (cmd/kubeadm/app/phases/addons/dns/manifests.go, rendered by
dns.go:105-170 with coreDNSReplicas = 2 (dns.go:51), the image of images.go:44-60 and
constants.go:372 CoreDNSVersion, the DNS IP the tenth of the service range
(constants.go GetDNSIP) and the cluster domain cluster.local).

And kube-proxy (kubeproxy.py), the addon phase's other half.

Created once, at a cold start before the golden snapshot is taken, so every warm cluster
restores them (still Pending: the snapshot is taken before any node registers) and the
scheduler places the two CoreDNS pods on the simulated nodes as they become ready, while
the DaemonSet controller gives every node its kube-proxy pod.
"""

from lightkube import ApiError, Client
from lightkube.codecs import load_all_yaml
from lightkube.resources.apps_v1 import DaemonSet, Deployment
from lightkube.resources.core_v1 import Pod

from kubeproof.cluster import kubeproxy
from kubeproof.errors import KubeproofError
from kubeproof.netsim.objects import CLUSTER_DOMAIN, DNS_SERVICE_IP

COREDNS_VERSION = "v1.14.2"  # cmd/kubeadm/app/constants/constants.go:372
COREDNS_IMAGE = f"registry.k8s.io/coredns/coredns:{COREDNS_VERSION}"  # images.go:51-57
COREDNS_REPLICAS = 2  # dns.go:51 coreDNSReplicas
CONTROL_PLANE_TAINT = "node-role.kubernetes.io/control-plane"  # constants.go:279

# The manifests as manifests.go has them, its template fields filled in. Only
# `resourceVersion: "0"` of the Service is left out: kubeadm needs it to update the
# Service across versions, a create rejects it.
COREDNS = f"""
apiVersion: v1
kind: ServiceAccount
metadata:
  name: coredns
  namespace: kube-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: system:coredns
rules:
- apiGroups:
  - ""
  resources:
  - endpoints
  - services
  - pods
  - namespaces
  verbs:
  - list
  - watch
- apiGroups:
  - discovery.k8s.io
  resources:
  - endpointslices
  verbs:
  - list
  - watch
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: system:coredns
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: system:coredns
subjects:
- kind: ServiceAccount
  name: coredns
  namespace: kube-system
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: coredns
  namespace: kube-system
data:
  Corefile: |
    .:53 {{
        errors
        health {{
           lameduck 5s
        }}
        ready
        kubernetes {CLUSTER_DOMAIN} in-addr.arpa ip6.arpa {{
           pods insecure
           fallthrough in-addr.arpa ip6.arpa
           ttl 30
        }}
        prometheus :9153
        forward . /etc/resolv.conf {{
           max_concurrent 1000
        }}
        cache 30 {{
           disable success {CLUSTER_DOMAIN}
           disable denial {CLUSTER_DOMAIN}
        }}
        loop
        reload
        loadbalance
    }}
---
apiVersion: v1
kind: Service
metadata:
  labels:
    k8s-app: kube-dns
    kubernetes.io/cluster-service: "true"
    kubernetes.io/name: "CoreDNS"
  name: kube-dns
  namespace: kube-system
  annotations:
    prometheus.io/port: "9153"
    prometheus.io/scrape: "true"
spec:
  clusterIP: {DNS_SERVICE_IP}
  ports:
  - name: dns
    port: 53
    protocol: UDP
    targetPort: 53
  - name: dns-tcp
    port: 53
    protocol: TCP
    targetPort: 53
  - name: metrics
    port: 9153
    protocol: TCP
    targetPort: 9153
  selector:
    k8s-app: kube-dns
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: coredns
  namespace: kube-system
  labels:
    k8s-app: kube-dns
spec:
  replicas: {COREDNS_REPLICAS}
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxUnavailable: 1
  selector:
    matchLabels:
      k8s-app: kube-dns
  template:
    metadata:
      labels:
        k8s-app: kube-dns
    spec:
      priorityClassName: system-cluster-critical
      serviceAccountName: coredns
      affinity:
        podAntiAffinity:
          preferredDuringSchedulingIgnoredDuringExecution:
          - weight: 100
            podAffinityTerm:
              labelSelector:
                matchExpressions:
                - key: k8s-app
                  operator: In
                  values: ["kube-dns"]
              topologyKey: kubernetes.io/hostname
      tolerations:
      - key: CriticalAddonsOnly
        operator: Exists
      - key: {CONTROL_PLANE_TAINT}
        effect: NoSchedule
      nodeSelector:
        kubernetes.io/os: linux
      containers:
      - name: coredns
        image: {COREDNS_IMAGE}
        imagePullPolicy: IfNotPresent
        resources:
          limits:
            memory: 170Mi
          requests:
            cpu: 100m
            memory: 70Mi
        args: [ "-conf", "/etc/coredns/Corefile" ]
        volumeMounts:
        - name: config-volume
          mountPath: /etc/coredns
          readOnly: true
        ports:
        - containerPort: 53
          name: dns
          protocol: UDP
        - containerPort: 53
          name: dns-tcp
          protocol: TCP
        - containerPort: 9153
          name: metrics
          protocol: TCP
        - containerPort: 8080
          name: liveness-probe
          protocol: TCP
        - containerPort: 8181
          name: readiness-probe
          protocol: TCP
        livenessProbe:
          httpGet:
            path: /health
            port: liveness-probe
            scheme: HTTP
          initialDelaySeconds: 60
          timeoutSeconds: 5
          successThreshold: 1
          failureThreshold: 5
        readinessProbe:
          httpGet:
            path: /ready
            port: readiness-probe
            scheme: HTTP
        securityContext:
          allowPrivilegeEscalation: false
          capabilities:
            add:
            - NET_BIND_SERVICE
            drop:
            - ALL
          readOnlyRootFilesystem: true
      dnsPolicy: Default
      volumes:
        - name: config-volume
          configMap:
            name: coredns
            items:
            - key: Corefile
              path: Corefile
"""


# the ServiceAccounts the add-ons create in kube-system (their workloads' own identities,
# not a controller's: the simulated pods make no requests of their own)
ADDON_ACCOUNTS = ("coredns", "kube-proxy")


def install(client: Client, version: str) -> None:
    """Create the CoreDNS objects in kubeadm's order (dns.go createCoreDNSAddon: ConfigMap,
    RBAC, Deployment, Service; the order does not matter to the apiserver), then
    kube-proxy's (proxy.go EnsureProxyAddon)."""
    for obj in load_all_yaml(COREDNS + "\n---\n" + kubeproxy.manifests(version)):
        try:
            client.create(obj)
        except ApiError as exc:
            if exc.status.code != 409:  # AlreadyExists: a retried cold start
                raise


def create_missing(client: Client, objs: list) -> list[str]:
    """Create an optional addon's objects in manifest order (kubectl apply's order); ones
    that exist are left as they are (installed before). Returns `Kind/name` of the new."""
    created = []
    for obj in objs:
        try:
            client.create(obj)
            created.append(f"{obj.kind}/{obj.metadata.name}")
        except ApiError as exc:
            if exc.status.code != 409:  # AlreadyExists
                raise
    return created


# the optional addons (`kubeproof cluster addons`, a task's `addons:`), by name
OPTIONAL = ("ingress-nginx", "local-path", "traefik")


def optional(name: str):
    """The module of an optional addon: its MANIFEST and install(client)."""
    from kubeproof.cluster import ingressnginx, localpath, traefik

    modules = {"ingress-nginx": ingressnginx, "local-path": localpath, "traefik": traefik}
    if name not in modules:
        raise KubeproofError(f"unknown addon {name!r} (known: {', '.join(OPTIONAL)})")
    return modules[name]


def pods_created(client: Client) -> bool:
    """The ReplicaSet has made its pods: the snapshot then holds them, not a race."""
    pods = client.list(Pod, namespace="kube-system", labels={"k8s-app": "kube-dns"})
    return len(list(pods)) >= COREDNS_REPLICAS


def dns_unready(client: Client, nodes: int) -> list[str]:
    """Empty once CoreDNS serves: every replica available. A pod the scheduler cannot
    place on these `nodes` (every node tainted, or too small) would never become so, and a
    real cluster comes up with DNS pending then too: that does not hold the cluster back.
    Only a verdict over all of them counts ("0/N nodes are available",
    pkg/scheduler/framework/types.go:903): the restored pods carry the cold start's, from
    when there were none."""
    try:
        deploy = client.get(Deployment, "coredns", namespace="kube-system")
    except ApiError:
        return ["deployment kube-system/coredns"]
    want = deploy.spec.replicas if deploy.spec.replicas is not None else 1
    if (deploy.status.availableReplicas or 0) >= want:
        return []
    for pod in client.list(Pod, namespace="kube-system", labels={"k8s-app": "kube-dns"}):
        for cond in pod.status.conditions or []:
            if (
                cond.type == "PodScheduled"
                and cond.reason == "Unschedulable"
                and (cond.message or "").startswith(f"0/{nodes} nodes are available")
            ):
                return []
    return [f"deployment kube-system/coredns available ({want} replicas)"]


def proxy_unready(client: Client) -> list[str]:
    """Empty once every node's kube-proxy pod is available (the DaemonSet tolerates every
    taint, so each registered node gets one)."""
    try:
        ds = client.get(DaemonSet, "kube-proxy", namespace="kube-system")
    except ApiError:
        return ["daemonset kube-system/kube-proxy"]
    status = ds.status
    want = status.desiredNumberScheduled if status else 0
    if want and (status.numberAvailable or 0) >= want:
        return []
    return [f"daemonset kube-system/kube-proxy available on every node ({want})"]
