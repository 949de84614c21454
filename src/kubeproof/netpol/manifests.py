"""A topology's workload manifests: its Namespaces, one Deployment per app (or per version)
and one ClusterIP Service per app that serves ports. The policies are baseline.py's."""

from kubeproof.netpol.topology import App, Topology, Workload


def namespace(topology: Topology, name: str) -> dict:
    labels = next(n.labels for n in topology.namespaces if n.name == name)
    meta: dict = {"name": name}
    if labels:
        meta["labels"] = dict(labels)
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": meta}


def deployment(topology: Topology, workload: Workload) -> dict:
    app = workload.app
    ports = []
    for p in app.ports:
        entry: dict = {"containerPort": p.pod_port, "protocol": p.protocol}
        if topology.named_ports:
            entry["name"] = p.name
        ports.append(entry)
    container: dict = {"name": app.container, "image": app.image}
    if ports:
        container["ports"] = ports
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": workload.name,
            "namespace": workload.namespace,
            "labels": workload.labels,
        },
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": workload.labels},
            "template": {
                "metadata": {"labels": workload.labels},
                "spec": {"containers": [container]},
            },
        },
    }


def service(app: App) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": app.name, "namespace": app.namespace, "labels": {"app": app.name}},
        "spec": {
            "type": "ClusterIP",
            "selector": {"app": app.name},
            "ports": [
                {"name": p.name, "port": p.port, "targetPort": p.pod_port, "protocol": p.protocol}
                for p in app.ports
            ],
        },
    }


def workloads(topology: Topology) -> list[dict]:
    """Namespaces, Deployments and Services, in the order `kubectl apply` takes them."""
    out = [namespace(topology, ns.name) for ns in topology.namespaces]
    out += [deployment(topology, w) for w in topology.workloads()]
    out += [service(a) for a in topology.apps if a.ports]
    return out
