"""The API objects netsim reasons over, indexed. Built from plain dicts (a live cluster's
objects, a snapshot, or manifests read from files)."""

from dataclasses import dataclass, field

CLUSTER_DOMAIN = "cluster.local"
# The embedded cluster runs no DNS pods; netsim stands one in at the usual place, so that
# egress policies that allow DNS (to kube-system/k8s-app=kube-dns, port 53) mean what they
# would on a real cluster.
DNS_SERVICE_IP = "10.96.0.10"
DNS_POD = {
    "metadata": {"name": "coredns", "namespace": "kube-system", "labels": {"k8s-app": "kube-dns"}},
    "spec": {
        "containers": [
            {
                "name": "coredns",
                "ports": [
                    {"name": "dns", "containerPort": 53, "protocol": "UDP"},
                    {"name": "dns-tcp", "containerPort": 53, "protocol": "TCP"},
                    # the ports of kubeadm's CoreDNS Deployment (cmd/kubeadm/app/phases/
                    # addons/dns/manifests.go): DNS and the Prometheus metrics endpoint
                    {"name": "metrics", "containerPort": 9153, "protocol": "TCP"},
                ],
            }
        ]
    },
    "status": {
        "podIP": "10.244.0.10",
        "phase": "Running",
        "conditions": [{"type": "Ready", "status": "True"}],
    },
}


def protocol_of(entry: dict) -> str:
    """A port's protocol: TCP when absent or null, as the apiserver defaults it
    (SetDefaults_ContainerPort, SetDefaults_NetworkPolicyPort in pkg/apis/{core,networking}/
    v1/defaults.go). Manifests from files are not defaulted; `protocol:` with no value is null."""
    return entry.get("protocol") or "TCP"


def key(obj: dict) -> str:
    meta = obj["metadata"]
    return f"{meta.get('namespace', 'default')}/{meta['name']}"


@dataclass
class Pod:
    obj: dict

    @property
    def key(self) -> str:
        return key(self.obj)

    @property
    def name(self) -> str:
        return self.obj["metadata"]["name"]

    @property
    def namespace(self) -> str:
        return self.obj["metadata"].get("namespace", "default")

    @property
    def labels(self) -> dict[str, str]:
        return self.obj["metadata"].get("labels") or {}

    @property
    def ip(self) -> str | None:
        return (self.obj.get("status") or {}).get("podIP")

    @property
    def ready(self) -> bool:
        conditions = (self.obj.get("status") or {}).get("conditions") or []
        return any(c["type"] == "Ready" and c["status"] == "True" for c in conditions)

    @property
    def terminating(self) -> bool:
        return "deletionTimestamp" in self.obj["metadata"]

    def named_port(self, name: str, protocol: str = "TCP") -> int | None:
        for container in self.obj["spec"].get("containers") or []:
            for port in container.get("ports") or []:
                if port.get("name") == name and protocol_of(port) == protocol:
                    return port["containerPort"]
        return None

    def declared_ports(self) -> set[tuple[int, str]]:
        return {
            (p["containerPort"], protocol_of(p))
            for c in self.obj["spec"].get("containers") or []
            for p in c.get("ports") or []
        }


@dataclass
class Objects:
    pods: dict[str, Pod] = field(default_factory=dict)
    services: dict[str, dict] = field(default_factory=dict)
    slices: dict[str, list[dict]] = field(default_factory=dict)  # service key -> slices
    namespaces: dict[str, dict] = field(default_factory=dict)
    policies: dict[str, list[dict]] = field(default_factory=dict)  # namespace -> policies
    ingresses: list[dict] = field(default_factory=list)  # networking.k8s.io/v1 (ingress.py)
    ingress_classes: list[dict] = field(default_factory=list)

    @classmethod
    def build(cls, objects: list[dict], virtual_dns: bool = True) -> "Objects":
        index = cls()
        for obj in objects:
            kind = obj.get("kind")
            if kind == "Pod":
                index.pods[key(obj)] = Pod(obj)
            elif kind == "Service":
                index.services[key(obj)] = obj
            elif kind == "EndpointSlice":
                meta = obj["metadata"]
                owner = (meta.get("labels") or {}).get("kubernetes.io/service-name")
                if owner:
                    index.slices.setdefault(
                        f"{meta.get('namespace', 'default')}/{owner}", []
                    ).append(obj)
            elif kind == "Namespace":
                index.namespaces[obj["metadata"]["name"]] = obj
            elif kind == "NetworkPolicy":
                ns = obj["metadata"].get("namespace", "default")
                index.policies.setdefault(ns, []).append(obj)
            elif kind == "Ingress":
                index.ingresses.append(obj)
            elif kind == "IngressClass":
                index.ingress_classes.append(obj)
        # namespaces named by objects but not listed still exist, with their automatic label
        for ns in (
            {p.namespace for p in index.pods.values()}
            | {s["metadata"].get("namespace", "default") for s in index.services.values()}
            | {"kube-system"}
        ):
            index.namespaces.setdefault(ns, {"metadata": {"name": ns}})
        if virtual_dns and "kube-system/kube-dns" not in index.services:
            index.pods.setdefault("kube-system/coredns", Pod(DNS_POD))
            index.services["kube-system/kube-dns"] = {
                "metadata": {"name": "kube-dns", "namespace": "kube-system"},
                "spec": {
                    "clusterIP": DNS_SERVICE_IP,
                    "selector": {"k8s-app": "kube-dns"},
                    "ports": [
                        {"name": "dns", "port": 53, "protocol": "UDP", "targetPort": 53},
                        {"name": "dns-tcp", "port": 53, "protocol": "TCP", "targetPort": 53},
                    ],
                },
            }
        return index

    def namespace_labels(self, name: str) -> dict[str, str]:
        labels = dict((self.namespaces.get(name, {}).get("metadata") or {}).get("labels") or {})
        labels.setdefault("kubernetes.io/metadata.name", name)
        return labels

    def pod_by_ip(self, ip: str) -> Pod | None:
        return next((p for p in self.pods.values() if p.ip == ip), None)

    def service_by_ip(self, ip: str) -> dict | None:
        return next(
            (s for s in self.services.values() if s.get("spec", {}).get("clusterIP") == ip), None
        )
