"""Small builders for API objects in netsim tests."""


def namespace(name: str, **labels: str) -> dict:
    return {"kind": "Namespace", "metadata": {"name": name, "labels": labels}}


def pod(
    ref: str,
    ip: str,
    labels: dict | None = None,
    ports: list | None = None,
    ready: bool = True,
    **spec,
) -> dict:
    ns, name = ref.split("/")
    container = {"name": "app", "image": "app"}
    if ports:
        container["ports"] = [
            {"containerPort": p[0], "name": p[1]} if isinstance(p, tuple) else {"containerPort": p}
            for p in ports
        ]
    return {
        "kind": "Pod",
        "metadata": {"name": name, "namespace": ns, "labels": labels or {}},
        "spec": {"containers": [container], **spec},
        "status": {
            "podIP": ip,
            "phase": "Running",
            "conditions": [{"type": "Ready", "status": "True" if ready else "False"}],
        },
    }


def service(
    ref: str, selector: dict | None, ports: list, cluster_ip: str = "10.96.1.1", **spec
) -> dict:
    ns, name = ref.split("/")
    return {
        "kind": "Service",
        "metadata": {"name": name, "namespace": ns},
        "spec": {
            "selector": selector,
            "clusterIP": cluster_ip,
            "ports": [p if isinstance(p, dict) else {"port": p, "targetPort": p} for p in ports],
            **spec,
        },
    }


def netpol(ref: str, spec: dict) -> dict:
    ns, name = ref.split("/")
    return {"kind": "NetworkPolicy", "metadata": {"name": name, "namespace": ns}, "spec": spec}


def allow_dns_egress(ref: str, protocols: tuple[str, ...] = ("UDP",)) -> dict:
    """Egress from every pod of the namespace to the cluster DNS pods on port 53."""
    to_dns = {
        "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}},
        "podSelector": {"matchLabels": {"k8s-app": "kube-dns"}},
    }
    ports = [{"port": 53, "protocol": protocol} for protocol in protocols]
    egress = [{"to": [to_dns], "ports": ports}]
    return netpol(ref, {"podSelector": {}, "policyTypes": ["Egress"], "egress": egress})
