"""The baseline NetworkPolicies of a topology, in two variants, both allowing exactly the
intended matrix (intent.py):

- `ingress`: one policy per app admitting its callers on the ports they call (and anyone
  on its public ports); egress left alone (Online Boutique's upstream policies list Egress
  with one empty rule, `open_egress`).
- `deny`: a default deny (Ingress and Egress) in every namespace, DNS egress to kube-dns,
  egress to the public ports, and per app its callers' ingress and its calls' egress.

Policy ports are pod ports (the Service's targetPort): a policy sees the connection after
the Service address was translated to a pod."""

from kubeproof.netpol.topology import App, Port, Topology, Workload

VARIANTS = ("ingress", "deny")
DNS_PEER = {
    "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}},
    "podSelector": {"matchLabels": {"k8s-app": "kube-dns"}},
}


def _policy(name: str, namespace: str, spec: dict) -> dict:
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": name, "namespace": namespace},
        "spec": spec,
    }


def _port(topology: Topology, port: Port) -> dict:
    number_or_name: int | str = port.name if topology.named_ports else port.pod_port
    return {"port": number_or_name, "protocol": port.protocol}


def _peer(topology: Topology, labels: dict, namespace: str, policy_namespace: str) -> dict:
    peer: dict = {}
    if namespace != policy_namespace:
        peer["namespaceSelector"] = {"matchLabels": topology.namespace_labels(namespace)}
    peer["podSelector"] = {"matchLabels": dict(labels)}
    return peer


def _ingress(topology: Topology, app: App) -> list[dict]:
    """Callers grouped by the ports they call (one rule per group), then the public ports."""
    groups: dict[tuple[Port, ...], list[Workload]] = {}
    for caller in topology.workloads():
        if caller.app == app:
            continue
        ports = {
            p
            for call in caller.calls
            if topology.callee(call, caller.namespace) == app
            for p in topology.called_ports(call, caller.namespace)
            if not p.public
        }
        if ports:
            key = tuple(p for p in app.ports if p in ports)
            groups.setdefault(key, []).append(caller)
    rules = [
        {
            "from": [_peer(topology, c.labels, c.namespace, app.namespace) for c in callers],
            "ports": [_port(topology, p) for p in ports],
        }
        for ports, callers in groups.items()
    ]
    public = [_port(topology, p) for p in app.ports if p.public]
    if public:
        rules.append({"ports": public})
    return rules


def egress_rules(topology: Topology, app: App) -> list[dict]:
    """One rule per callee app, on the (non-public) ports any of the app's workloads call."""
    called: dict[str, tuple[App, set[Port]]] = {}
    for w in topology.workloads():
        if w.app != app:
            continue
        for call in w.calls:
            callee = topology.callee(call, w.namespace)
            ports = [p for p in topology.called_ports(call, w.namespace) if not p.public]
            if ports:
                called.setdefault(callee.key, (callee, set()))[1].update(ports)
    return [
        {
            "to": [_peer(topology, {"app": callee.name}, callee.namespace, app.namespace)],
            "ports": [_port(topology, p) for p in callee.ports if p in ports],
        }
        for callee, ports in called.values()
    ]


def _per_app(topology: Topology, app: App, deny: bool) -> dict | None:
    ingress = _ingress(topology, app) if app.ports else []
    open_egress: list[dict] = [{}] if topology.open_egress else []
    egress = egress_rules(topology, app) if deny else open_egress
    spec: dict = {"podSelector": {"matchLabels": {"app": app.name}}, "policyTypes": []}
    if ingress or (app.ports and not deny):
        spec["policyTypes"].append("Ingress")
        spec["ingress"] = ingress
    if egress:
        spec["policyTypes"].append("Egress")
        spec["egress"] = egress
    return _policy(app.name, app.namespace, spec) if spec["policyTypes"] else None


def _namespace_wide(topology: Topology, namespace: str) -> list[dict]:
    everyone: dict[str, dict] = {"podSelector": {}}
    out = [
        _policy("default-deny", namespace, {**everyone, "policyTypes": ["Ingress", "Egress"]}),
        _policy(
            "allow-dns",
            namespace,
            {
                **everyone,
                "policyTypes": ["Egress"],
                "egress": [
                    {
                        "to": [DNS_PEER],
                        "ports": [{"port": 53, "protocol": "UDP"}, {"port": 53, "protocol": "TCP"}],
                    }
                ],
            },
        ),
    ]
    public = [
        {
            "to": [_peer(topology, {"app": a.name}, a.namespace, namespace)],
            "ports": [_port(topology, p) for p in a.ports if p.public],
        }
        for a in topology.apps
        if any(p.public for p in a.ports)
    ]
    if public:
        spec = {**everyone, "policyTypes": ["Egress"], "egress": public}
        out.append(_policy("allow-egress-public", namespace, spec))
    return out


def policies(topology: Topology, variant: str) -> list[dict]:
    if variant not in VARIANTS:
        raise KeyError(f"no baseline variant {variant!r} (known: {', '.join(VARIANTS)})")
    deny = variant == "deny"
    out = []
    if deny:
        for ns in topology.namespaces:
            out += _namespace_wide(topology, ns.name)
    for app in topology.apps:
        policy = _per_app(topology, app, deny)
        if policy is not None:
            out.append(policy)
    return out
