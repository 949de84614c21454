"""The configuration `kubeadm init` (v1.36.3) leaves in the cluster for later joins and
upgrades: ConfigMaps `kube-system/kubeadm-config` (the ClusterConfiguration),
`kube-system/kubelet-config` (the KubeletConfiguration every node's kubelet starts from) and
`kube-public/cluster-info` (the kubeconfig a joining node trusts), each rendered with this
cluster's real values. Their RBAC is kubeadmrbac.py's.

- kubeadm-config: `cmd/kubeadm/app/phases/uploadconfig/uploadconfig.go:42-78`, the v1beta4
  ClusterConfiguration (`apis/kubeadm/v1beta4/types.go`) with its defaults (`v1beta4/
  defaults.go:80-120`) and this cluster's networking, version and certificate algorithm
  (ECDSA P-256, cluster/pki.py). A flag of our control plane that kubeadm's command
  would not have (`phases/controlplane/manifests.go:185-382`, `phases/etcd/local.go:242-284`)
  is one of its component's extraArgs, so `kubectl get cm kubeadm-config` agrees with the
  static pods' command lines (cluster/staticpods.py).
- kubelet-config: `phases/kubelet/config.go:125-161` CreateConfigMap, the kubelet
  v1beta1 type as `componentconfigs/kubelet.go:111-197` Default sets it, signed with
  `componentconfigs/checksums.go:29-66`.
- cluster-info: `phases/bootstraptoken/clusterinfo/clusterinfo.go:42-80`, admin.conf's
  cluster written by clientcmd.Write (k8s.io/client-go v0.36.3 tools/clientcmd/api/v1/
  types.go). The server is the control-plane endpoint `control-plane:6443`, kind's
  convention kube-proxy's ConfigMap follows too (kubeproxy.py).

No bootstrap token is created, so cluster-info has no `jws-kubeconfig-<id>` key: this
apiserver does not authenticate bootstrap tokens (no `--enable-bootstrap-token-auth`), and
the golden snapshot would hold a 24 h token long expired in the clusters made from it.

kubeadm-config and cluster-info carry per-cluster values (addresses, the CA), so a warm
start rewrites them (publish) after restoring the snapshot; the rest is the same in every
cluster.
"""

import base64
import hashlib

import yaml
from lightkube import ApiError, Client
from lightkube.codecs import from_dict
from lightkube.resources.core_v1 import ConfigMap

from kubeproof.cluster.components import Component
from kubeproof.cluster.layout import Layout
from kubeproof.cluster.pki import SERVICE_CIDR
from kubeproof.cluster.staticpods import CERTIFICATES_DIR, ETCD_DATA_DIR, KUBERNETES_DIR, command
from kubeproof.netsim.objects import CLUSTER_DOMAIN, DNS_SERVICE_IP
from kubeproof.nodesim.profile import CONTROL_PLANE_NODE

POD_SUBNET = "10.244.0.0/16"  # the nodes' pod CIDRs (nodesim/profile.py), kube-proxy's
CONTROL_PLANE_ENDPOINT = f"{CONTROL_PLANE_NODE}:6443"
HASH_ANNOTATION = "kubeadm.kubernetes.io/component-config.hash"  # constants.go:427
STATIC_POD_PATH = f"{KUBERNETES_DIR}/manifests"  # v1beta4/defaults.go:46


class _GoYaml(yaml.SafeDumper):
    """sigs.k8s.io/yaml's output: keys sorted, sequences not indented under their key,
    a quoted scalar in double quotes, no line folding."""

    def choose_scalar_style(self):
        style = super().choose_scalar_style()
        return '"' if style == "'" else style


def go_yaml(obj) -> str:
    return yaml.dump(obj, Dumper=_GoYaml, sort_keys=True, width=float("inf"))


def _kubeadm_flags(address: str) -> dict[str, dict[str, str]]:
    """The flags kubeadm's own commands give each component (manifests.go getAPIServerCommand
    :185-256, getControllerManagerCommand :321-366, getSchedulerCommand :371-382; local.go
    getEtcdCommand :242-284), with a local etcd and this cluster's subnets."""
    pki = CERTIFICATES_DIR
    cm_conf = f"{KUBERNETES_DIR}/controller-manager.conf"
    sched_conf = f"{KUBERNETES_DIR}/scheduler.conf"
    return {
        "kube-apiserver": {
            "advertise-address": address,
            "allow-privileged": "true",
            "authorization-mode": "Node,RBAC",
            "client-ca-file": f"{pki}/ca.crt",
            "enable-admission-plugins": "NodeRestriction",
            "enable-bootstrap-token-auth": "true",
            "etcd-cafile": f"{pki}/etcd/ca.crt",
            "etcd-certfile": f"{pki}/apiserver-etcd-client.crt",
            "etcd-keyfile": f"{pki}/apiserver-etcd-client.key",
            "etcd-servers": "https://127.0.0.1:2379",
            "kubelet-client-certificate": f"{pki}/apiserver-kubelet-client.crt",
            "kubelet-client-key": f"{pki}/apiserver-kubelet-client.key",
            "kubelet-preferred-address-types": "InternalIP,ExternalIP,Hostname",
            "proxy-client-cert-file": f"{pki}/front-proxy-client.crt",
            "proxy-client-key-file": f"{pki}/front-proxy-client.key",
            "requestheader-allowed-names": "front-proxy-client",
            "requestheader-client-ca-file": f"{pki}/front-proxy-ca.crt",
            "requestheader-extra-headers-prefix": "X-Remote-Extra-",
            "requestheader-group-headers": "X-Remote-Group",
            "requestheader-username-headers": "X-Remote-User",
            "secure-port": "6443",
            "service-account-issuer": f"https://kubernetes.default.svc.{CLUSTER_DOMAIN}",
            "service-account-key-file": f"{pki}/sa.pub",
            "service-account-signing-key-file": f"{pki}/sa.key",
            "service-cluster-ip-range": SERVICE_CIDR,
            "tls-cert-file": f"{pki}/apiserver.crt",
            "tls-private-key-file": f"{pki}/apiserver.key",
        },
        "kube-controller-manager": {
            "allocate-node-cidrs": "true",
            "authentication-kubeconfig": cm_conf,
            "authorization-kubeconfig": cm_conf,
            "bind-address": "127.0.0.1",
            "client-ca-file": f"{pki}/ca.crt",
            "cluster-cidr": POD_SUBNET,
            "cluster-name": "kubernetes",
            "cluster-signing-cert-file": f"{pki}/ca.crt",
            "cluster-signing-key-file": f"{pki}/ca.key",
            "controllers": "*,bootstrapsigner,tokencleaner",
            "kubeconfig": cm_conf,
            "leader-elect": "true",
            "requestheader-client-ca-file": f"{pki}/front-proxy-ca.crt",
            "root-ca-file": f"{pki}/ca.crt",
            "service-account-private-key-file": f"{pki}/sa.key",
            "service-cluster-ip-range": SERVICE_CIDR,
            "use-service-account-credentials": "true",
        },
        "kube-scheduler": {
            "authentication-kubeconfig": sched_conf,
            "authorization-kubeconfig": sched_conf,
            "bind-address": "127.0.0.1",
            "kubeconfig": sched_conf,
            "leader-elect": "true",
        },
        "etcd": {
            "advertise-client-urls": f"https://{address}:2379",
            "cert-file": f"{pki}/etcd/server.crt",
            "client-cert-auth": "true",
            "data-dir": ETCD_DATA_DIR,
            "feature-gates": "InitialCorruptCheck=true",
            "initial-advertise-peer-urls": f"https://{address}:2380",
            "initial-cluster": f"{CONTROL_PLANE_NODE}=https://{address}:2380",
            "key-file": f"{pki}/etcd/server.key",
            "listen-client-urls": f"https://127.0.0.1:2379,https://{address}:2379",
            "listen-metrics-urls": "http://127.0.0.1:2381",
            "listen-peer-urls": f"https://{address}:2380",
            "name": CONTROL_PLANE_NODE,
            "peer-cert-file": f"{pki}/etcd/peer.crt",
            "peer-client-cert-auth": "true",
            "peer-key-file": f"{pki}/etcd/peer.key",
            "peer-trusted-ca-file": f"{pki}/etcd/ca.crt",
            "snapshot-count": "10000",
            "trusted-ca-file": f"{pki}/etcd/ca.crt",
            "watch-progress-notify-interval": "5s",
        },
    }


def extra_args(component: Component, layout: Layout, address: str) -> list[dict[str, str]]:
    """The component's flags (as its static pod shows them) that kubeadm's command lacks or
    sets otherwise: what a ClusterConfiguration needs in extraArgs to produce that command
    (ArgumentsToCommand lets an extra argument override a default, util/arguments.go).
    kubeadm flags ours lack cannot be expressed and are left out."""
    defaults = _kubeadm_flags(address)[component.name]
    args = []
    for flag in command(component, layout)[1:]:
        name, _, value = flag.removeprefix("--").partition("=")
        if defaults.get(name) != value:
            args.append({"name": name, "value": value})
    return args


def cluster_configuration(
    components: list[Component], layout: Layout, address: str, version: str
) -> dict:
    """The v1beta4 ClusterConfiguration uploadconfig.go:57 marshals: defaults filled in,
    ComponentConfigs dropped, empty structs printed as `{}`."""
    by_name = {c.name: c for c in components}

    def component(name: str) -> dict:
        extra = extra_args(by_name[name], layout, address) if name in by_name else []
        return {"extraArgs": extra} if extra else {}

    local_etcd: dict = {"dataDir": ETCD_DATA_DIR} | component("etcd")
    return {
        "apiServer": component("kube-apiserver"),
        "apiVersion": "kubeadm.k8s.io/v1beta4",
        "caCertificateValidityPeriod": "87600h0m0s",  # constants.go:50, as pki.py's CA
        "certificateValidityPeriod": "8760h0m0s",  # constants.go:48
        "certificatesDir": CERTIFICATES_DIR,
        "clusterName": "kubernetes",
        "controlPlaneEndpoint": CONTROL_PLANE_ENDPOINT,
        "controllerManager": component("kube-controller-manager"),
        "dns": {},
        "encryptionAlgorithm": "ECDSA-P256",  # v1beta4/types.go:583, pki.py's keys
        "etcd": {"local": local_etcd},
        "imageRepository": "registry.k8s.io",
        "kind": "ClusterConfiguration",
        "kubernetesVersion": version,
        "networking": {
            "dnsDomain": CLUSTER_DOMAIN,
            "podSubnet": POD_SUBNET,
            "serviceSubnet": SERVICE_CIDR,
        },
        "proxy": {},
        "scheduler": component("kube-scheduler"),
    }


# KubeletConfiguration v1beta1 (k8s.io/kubelet v0.36.3 config/v1beta1/types.go) as kubeadm
# defaults it: every Duration and struct printed although zero (encoding/json does not
# omit structs), the rest omitted when empty.
KUBELET_CONFIGURATION = f"""\
apiVersion: kubelet.config.k8s.io/v1beta1
authentication:
  anonymous:
    enabled: false
  webhook:
    cacheTTL: 0s
    enabled: true
  x509:
    clientCAFile: {CERTIFICATES_DIR}/ca.crt
authorization:
  mode: Webhook
  webhook:
    cacheAuthorizedTTL: 0s
    cacheUnauthorizedTTL: 0s
cgroupDriver: systemd
clusterDNS:
- {DNS_SERVICE_IP}
clusterDomain: {CLUSTER_DOMAIN}
containerRuntimeEndpoint: ""
cpuManagerReconcilePeriod: 0s
crashLoopBackOff: {{}}
evictionPressureTransitionPeriod: 0s
fileCheckFrequency: 0s
healthzBindAddress: 127.0.0.1
healthzPort: 10248
httpCheckFrequency: 0s
imageMaximumGCAge: 0s
imageMinimumGCAge: 0s
kind: KubeletConfiguration
logging:
  flushFrequency: 0
  options:
    json:
      infoBufferSize: "0"
    text:
      infoBufferSize: "0"
  verbosity: 0
memorySwap: {{}}
nodeStatusReportFrequency: 0s
nodeStatusUpdateFrequency: 0s
rotateCertificates: true
runtimeRequestTimeout: 0s
shutdownGracePeriod: 0s
shutdownGracePeriodCriticalPods: 0s
staticPodPath: {STATIC_POD_PATH}
streamingConnectionIdleTimeout: 0s
syncFrequency: 0s
volumeStatsAggPeriod: 0s
"""


def signed(configmap: dict) -> dict:
    """SignConfigMap (checksums.go:29-66): sha256 over the values in key order."""
    digest = hashlib.sha256()
    for key in sorted(configmap.get("data") or {}):
        digest.update(configmap["data"][key].encode())
    meta = configmap["metadata"]
    meta["annotations"] = (meta.get("annotations") or {}) | {
        HASH_ANNOTATION: f"sha256:{digest.hexdigest()}"
    }
    return configmap


def _configmap(namespace: str, name: str, data: dict[str, str]) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": namespace},
        "data": data,
    }


def kubelet_config() -> dict:
    return signed(_configmap("kube-system", "kubelet-config", {"kubelet": KUBELET_CONFIGURATION}))


def cluster_info(ca_pem: bytes) -> dict:
    kubeconfig = {
        "apiVersion": "v1",
        "clusters": [
            {
                "cluster": {
                    "certificate-authority-data": base64.b64encode(ca_pem).decode(),
                    "server": f"https://{CONTROL_PLANE_ENDPOINT}",
                },
                "name": "",
            }
        ],
        "contexts": None,
        "current-context": "",
        "kind": "Config",
        "users": None,
    }
    return _configmap("kube-public", "cluster-info", {"kubeconfig": go_yaml(kubeconfig)})


def per_cluster(
    components: list[Component], layout: Layout, address: str, version: str
) -> list[dict]:
    """The two ConfigMaps whose content differs from cluster to cluster."""
    config = cluster_configuration(components, layout, address, version)
    kubeadm = _configmap("kube-system", "kubeadm-config", {"ClusterConfiguration": go_yaml(config)})
    return [kubeadm, cluster_info(layout.cert("ca").read_bytes())]


def objects(components: list[Component], layout: Layout, address: str, version: str) -> list:
    """Every object, in kubeadm init's order (kubeconfig's admin binding, upload-config,
    bootstrap-token)."""
    from kubeproof.cluster import kubeadmrbac

    kubeadm, info = per_cluster(components, layout, address, version)
    docs = [
        *kubeadmrbac.CLUSTER_ADMINS,
        kubeadm,
        *kubeadmrbac.UPLOAD_CONFIG,
        kubelet_config(),
        *kubeadmrbac.KUBELET_CONFIG,
    ]
    docs += [*kubeadmrbac.BOOTSTRAP_TOKEN, info, *kubeadmrbac.CLUSTER_INFO]
    return [from_dict(doc) for doc in docs]


def publish(
    client: Client, components: list[Component], layout: Layout, address: str, version: str
):
    """A warm start: this cluster's values over the snapshot's (the CA and addresses of
    the cold start that made it)."""
    for doc in per_cluster(components, layout, address, version):
        meta = doc["metadata"]
        try:
            client.patch(
                ConfigMap, meta["name"], {"data": doc["data"]}, namespace=meta["namespace"]
            )
        except ApiError as exc:
            if exc.status.code != 404:  # a snapshot of an older format: created at once
                raise
            client.create(from_dict(doc))
