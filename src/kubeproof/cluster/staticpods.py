"""The control plane's static Pod manifests, as `kubeadm init` writes them into
/etc/kubernetes/manifests, for the simulated control-plane node's kubelet to mirror into
kube-system (nodesim/staticpods.py).

The embedded control plane runs as local processes; a kubeadm cluster runs the same four
components as static pods on its control-plane node, and an operator looks at them there
(`kubectl get pods -n kube-system`, `kubectl describe pod kube-apiserver-…`). The pods are
kubeadm's (v1.36.3): `cmd/kubeadm/app/util/staticpod/utils.go` ComponentPod (labels
component/tier, priority 2000001000 `system-node-critical`, hostNetwork, the RuntimeDefault
seccomp profile), the probes of LivenessProbe/ReadinessProbe/StartupProbe (:256-296), the
CPU requests of `cmd/kubeadm/app/phases/controlplane/manifests.go:57-125` and
`phases/etcd/local.go:194-239`, the hostPath volumes of `phases/controlplane/volumes.go:43-93`.

Their commands are this cluster's real command lines, not kubeadm's defaults: an operator
reading `--enable-admission-plugins` must see what is enforced. Only the paths are shown
where kubeadm keeps them (certificates in /etc/kubernetes/pki, kubeconfigs as
/etc/kubernetes/<component>.conf, etcd's data in /var/lib/etcd), with the flags sorted by
name as kubeadm's ArgumentsToCommand does (`cmd/kubeadm/app/util/arguments.go`).
"""

from pathlib import Path

import yaml

from kubeproof.cluster.components import PORTS, Component
from kubeproof.cluster.layout import Layout

KUBERNETES_DIR = "/etc/kubernetes"
CERTIFICATES_DIR = "/etc/kubernetes/pki"
ETCD_DATA_DIR = "/var/lib/etcd"
ETCD_IMAGE_TAG = "3.6.8-0"  # cmd/kubeadm/app/constants/constants.go:518 SupportedEtcdVersion[36]
ETCD_METRICS_PORT = 2381  # constants.go EtcdMetricsPort: kubeadm probes etcd there
CONTROL_PLANE_PRIORITY = 2000001000  # utils.go:65, the system-node-critical class
# the API server annotation kubeadm sets (constants.go KubeAPIServerAdvertiseAddressEndpoint-
# AnnotationKey) and etcd's (EtcdAdvertiseClientUrlsAnnotationKey)
APISERVER_ENDPOINT_ANNOTATION = "kubeadm.kubernetes.io/kube-apiserver.advertise-address.endpoint"
ETCD_URLS_ANNOTATION = "kubeadm.kubernetes.io/etcd.advertise-client-urls"

_DIR = "DirectoryOrCreate"
_FILE = "FileOrCreate"


def kubeadm_paths(layout: Layout) -> list[tuple[str, str]]:
    """Where this cluster keeps a file → where kubeadm keeps it; most specific first."""
    return [
        (str(layout.kubeconfig("controller-manager")), f"{KUBERNETES_DIR}/controller-manager.conf"),
        (str(layout.kubeconfig("scheduler")), f"{KUBERNETES_DIR}/scheduler.conf"),
        (str(layout.pki), CERTIFICATES_DIR),
        (str(layout.etcd_data), ETCD_DATA_DIR),
        (str(layout.root), KUBERNETES_DIR),
    ]


def command(component: Component, layout: Layout) -> list[str]:
    """The component's command line as its static pod shows it: the program's name, then
    its flags sorted by name, paths where kubeadm keeps them."""
    paths = kubeadm_paths(layout)
    flags = []
    for arg in component.argv[1:]:
        for ours, theirs in paths:
            arg = arg.replace(ours, theirs)
        flags.append(arg)
    return [Path(component.argv[0]).name, *sorted(flags, key=lambda f: f.split("=", 1)[0])]


def _probe(host: str, path: str, scheme: str, delay: int, threshold: int, period: int) -> dict:
    """createHTTPProbe (utils.go:281-296): port `probe-port`, timeout 15 s."""
    return {
        "httpGet": {"host": host, "path": path, "port": "probe-port", "scheme": scheme},
        "initialDelaySeconds": delay,
        "timeoutSeconds": 15,
        "failureThreshold": threshold,
        "periodSeconds": period,
    }


def _probes(host: str, live: str, ready: str | None, start: str, scheme: str) -> dict:
    """LivenessProbe 10/8/10, ReadinessProbe 0/3/1, StartupProbe 10/ceil(240 s / 10)/10
    (utils.go:256-279; ControlPlaneComponentHealthCheckTimeout is 4 min, constants.go)."""
    probes = {"livenessProbe": _probe(host, live, scheme, 10, 8, 10)}
    if ready:
        probes["readinessProbe"] = _probe(host, ready, scheme, 0, 3, 1)
    probes["startupProbe"] = _probe(host, start, scheme, 10, 24, 10)
    return probes


def _host_path(name: str, path: str, kind: str, read_only: bool = True) -> tuple[dict, dict]:
    volume = {"name": name, "hostPath": {"path": path, "type": kind}}
    mount = {"name": name, "mountPath": path, "readOnly": read_only}
    if not read_only:
        del mount["readOnly"]
    return volume, mount


def _pod(
    name: str,
    container: dict,
    mounts: list[tuple[dict, dict]],
    annotations: dict | None = None,
) -> dict:
    """ComponentPod (utils.go:63-92); volumes and mounts sorted by name as
    VolumeMapToSlice and VolumeMountMapToSlice sort them."""
    mounts = sorted(mounts, key=lambda vm: vm[0]["name"])
    container = {
        "name": name,
        **container,
        "volumeMounts": [m for _, m in mounts],
    }
    metadata: dict = {
        "creationTimestamp": None,
        "labels": {"component": name, "tier": "control-plane"},
        "name": name,
        "namespace": "kube-system",
    }
    if annotations:
        metadata["annotations"] = annotations
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": metadata,
        "spec": {
            "containers": [container],
            "hostNetwork": True,
            "priority": CONTROL_PLANE_PRIORITY,
            "priorityClassName": "system-node-critical",
            "securityContext": {"seccompProfile": {"type": "RuntimeDefault"}},
            "volumes": [v for v, _ in mounts],
        },
        "status": {},
    }


def manifests(components: list[Component], layout: Layout, address: str, version: str) -> dict:
    """File name → the static pod manifest kubeadm would write for that component."""
    by_name = {c.name: c for c in components}

    def image(name: str) -> str:  # images.go GetKubernetesImage
        return f"registry.k8s.io/{name}:{version}"

    certs = _host_path("k8s-certs", CERTIFICATES_DIR, _DIR)
    ca_certs = _host_path("ca-certs", "/etc/ssl/certs", _DIR)
    audit = _host_path("audit", f"{KUBERNETES_DIR}/audit", _DIR)
    pods = {}

    def container(name: str, cpu: str, port: int, probes: dict, memory: str | None = None) -> dict:
        requests = {"cpu": cpu} | ({"memory": memory} if memory else {})
        return {
            "command": command(by_name[name], layout),
            "image": f"registry.k8s.io/etcd:{ETCD_IMAGE_TAG}" if name == "etcd" else image(name),
            "imagePullPolicy": "IfNotPresent",
            **probes,
            "ports": [{"containerPort": port, "name": "probe-port", "protocol": "TCP"}],
            "resources": {"requests": requests},
        }

    if "etcd" in by_name:
        # GetEtcdProbeEndpoint: plain HTTP on the metrics listener of localhost
        probes = _probes("127.0.0.1", "/livez", "/readyz", "/readyz", "HTTP")
        etcd = container("etcd", "100m", ETCD_METRICS_PORT, probes, memory="100Mi")
        data = _host_path("etcd-data", ETCD_DATA_DIR, _DIR, read_only=False)
        etcd_certs = _host_path("etcd-certs", f"{CERTIFICATES_DIR}/etcd", _DIR, read_only=False)
        urls = {ETCD_URLS_ANNOTATION: f"https://{address}:{PORTS['etcd']}"}
        pods["etcd.yaml"] = _pod("etcd", etcd, [data, etcd_certs], urls)
    port = PORTS["kube-apiserver"]
    probes = _probes(address, "/livez", "/readyz", "/livez", "HTTPS")
    apiserver = container("kube-apiserver", "250m", port, probes)
    endpoint = {APISERVER_ENDPOINT_ANNOTATION: f"{address}:{port}"}
    mounts = [certs, ca_certs, audit]
    pods["kube-apiserver.yaml"] = _pod("kube-apiserver", apiserver, mounts, endpoint)
    conf = f"{KUBERNETES_DIR}/controller-manager.conf"
    probes = _probes(address, "/healthz", None, "/healthz", "HTTPS")
    cm = container("kube-controller-manager", "200m", PORTS["kube-controller-manager"], probes)
    kubeconfig = _host_path("kubeconfig", conf, _FILE)
    pods["kube-controller-manager.yaml"] = _pod(
        "kube-controller-manager", cm, [certs, ca_certs, kubeconfig]
    )
    probes = _probes(address, "/livez", "/readyz", "/livez", "HTTPS")
    scheduler = container("kube-scheduler", "100m", PORTS["kube-scheduler"], probes)
    kubeconfig = _host_path("kubeconfig", f"{KUBERNETES_DIR}/scheduler.conf", _FILE)
    pods["kube-scheduler.yaml"] = _pod("kube-scheduler", scheduler, [kubeconfig])
    return pods


def write(directory: Path, pods: dict) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for name, pod in pods.items():
        (directory / name).write_text(yaml.safe_dump(pod, sort_keys=True))
