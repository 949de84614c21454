"""Seeded random NetworkPolicy cases: a few namespaces and pods, up to four policies drawn
from every shape the API allows, and probes between them. The same (seed, index) gives the
same case. Every policy is valid: the engine side runs the apiserver's validation on it.

Shapes covered: pod and namespace selectors (matchLabels; matchExpressions In, NotIn,
Exists, DoesNotExist; empty; the namespace's kubernetes.io/metadata.name label), both in
one peer, ipBlock (IPv4 and IPv6) with except, ports by number, by name (present, absent, on another
protocol) and with endPort, protocols TCP/UDP/SCTP or left out, policyTypes explicit or
left to the defaulting, ingress/egress missing, empty or with rules, peers and ports
missing or empty, default-deny policies, several policies on one pod, optional fields
written as null.
"""

import ipaddress
import random

from pydantic import BaseModel, Field

NAMESPACES = ("shop", "data", "ops")
NAMESPACE_LABELS = {"team": ("red", "blue"), "env": ("prod", "dev")}
POD_LABELS = {"app": ("web", "api", "db"), "tier": ("front", "back"), "version": ("v1", "v2")}
# (number, name) of the container ports pods declare
PORTS = ((80, "http"), (443, "https"), (8080, "web"), (53, "dns"), (5432, "pg"), (9090, "metrics"))
PROTOCOLS = ("TCP", "UDP", "SCTP")
ABSENT_PORT_NAME = "admin"  # declared by no pod
NULL_SHARE = 0.08
EXTERNAL_IPS = ("192.168.1.10", "203.0.113.7", "10.96.5.5", "10.244.9.9", "2001:db8::7")
CIDRS = (
    "10.244.0.0/16",
    "10.244.1.0/24",
    "10.244.0.0/23",
    "0.0.0.0/0",
    "192.168.0.0/16",
    "203.0.113.0/24",
    "10.244.0.3/32",
    "::/0",
    "2001:db8::/32",
)
EXCEPTS = (
    "10.244.0.0/24",
    "10.244.1.0/24",
    "10.244.2.0/24",
    "192.168.1.0/24",
    "10.0.0.0/8",
    "10.244.0.2/32",
    "10.244.1.3/32",
    "2001:db8::/64",
)


class Endpoint(BaseModel):
    pod: str | None = Field(default=None, description="ns/name of the pod, or None for `ip`")
    ip: str | None = Field(default=None, description="an address outside every pod")


class Probe(BaseModel):
    source: Endpoint = Field(description="who opens the connection")
    target: Endpoint = Field(description="who accepts it")
    port: int = Field(description="destination port number")
    protocol: str = Field(description="TCP, UDP or SCTP")


class Case(BaseModel):
    seed: int = Field(description="the run's seed")
    index: int = Field(description="the case's number within the run")
    namespaces: list[dict] = Field(description="Namespace objects, labels as written")
    pods: list[dict] = Field(description="Pod objects with containers' ports and status.podIP")
    policies: list[dict] = Field(description="NetworkPolicy objects, not defaulted")
    probes: list[Probe] = Field(description="the connections to judge")

    def objects(self) -> list[dict]:
        """The case's API objects with their kinds, as netsim takes them."""
        return (
            [{"kind": "Namespace", **n} for n in self.namespaces]
            + [{"kind": "Pod", **p} for p in self.pods]
            + [{"kind": "NetworkPolicy", **p} for p in self.policies]
        )

    def engine_input(self) -> dict:
        return self.model_dump(include={"namespaces", "pods", "policies", "probes"})


def _nulls(rng: random.Random, obj: dict, keys: tuple[str, ...]) -> dict:
    """Now and then an optional field left out is written as null instead (YAML's `key:`):
    the API decodes null as absent, then defaults."""
    for key in keys:
        if key not in obj and rng.random() < NULL_SHARE:
            obj[key] = None
    return obj


def _selector(rng: random.Random, vocabulary: dict[str, tuple[str, ...]]) -> dict:
    if rng.random() < 0.25:
        return _nulls(rng, {}, ("matchLabels", "matchExpressions"))
    selector: dict = {}
    keys = sorted(vocabulary)
    match_labels = {k: rng.choice(vocabulary[k]) for k in rng.sample(keys, rng.randint(0, 2))}
    expressions = []
    for _ in range(rng.choice((0, 1, 1, 2))):
        key = rng.choice(keys)
        operator = rng.choice(("In", "NotIn", "Exists", "DoesNotExist"))
        expression: dict = {"key": key, "operator": operator}
        if operator in ("In", "NotIn"):
            expression["values"] = rng.sample((*vocabulary[key], "other"), rng.randint(1, 2))
        expressions.append(expression)
    if match_labels:
        selector["matchLabels"] = match_labels
    if expressions:
        selector["matchExpressions"] = expressions
    return _nulls(rng, selector, ("matchLabels", "matchExpressions"))


def _namespace_vocabulary() -> dict[str, tuple[str, ...]]:
    return {**NAMESPACE_LABELS, "kubernetes.io/metadata.name": NAMESPACES}


def _ip_block(rng: random.Random) -> dict:
    cidr = rng.choice(CIDRS)
    network = ipaddress.ip_network(cidr)
    # except must be a strict subset of cidr (ValidateIPBlock, pkg/apis/networking/validation)
    inside = [
        e
        for e in EXCEPTS
        if (sub := ipaddress.ip_network(e)).version == network.version
        and sub.subnet_of(network)  # type: ignore[arg-type]
        and sub.prefixlen > network.prefixlen
    ]
    block: dict = {"cidr": cidr}
    excepts = rng.sample(inside, min(len(inside), rng.choice((0, 0, 1, 2))))
    if excepts:
        block["except"] = excepts
    return _nulls(rng, block, ("except",))


def _peer(rng: random.Random) -> dict:
    kind = rng.choices(("pod", "namespace", "both", "ip"), weights=(3, 3, 3, 2))[0]
    if kind == "ip":
        return _nulls(rng, {"ipBlock": _ip_block(rng)}, ("podSelector", "namespaceSelector"))
    peer = {}
    if kind in ("namespace", "both"):
        peer["namespaceSelector"] = _selector(rng, _namespace_vocabulary())
    if kind in ("pod", "both"):
        peer["podSelector"] = _selector(rng, POD_LABELS)
    return _nulls(rng, peer, ("ipBlock", "podSelector", "namespaceSelector"))


def _port(rng: random.Random) -> dict:
    entry: dict = {}
    protocol = rng.choices((None, *PROTOCOLS), weights=(3, 3, 2, 1))[0]
    if protocol:
        entry["protocol"] = protocol
    kind = rng.choices(("number", "name", "range", "none"), weights=(4, 3, 2, 1))[0]
    if kind == "number":
        entry["port"] = rng.choice(PORTS)[0]
    elif kind == "name":
        entry["port"] = rng.choice((*(name for _, name in PORTS), ABSENT_PORT_NAME))
    elif kind == "range":
        start = rng.choice(PORTS)[0]
        entry["port"] = start
        entry["endPort"] = min(65535, start + rng.choice((0, 1, 10, 400, 10000)))
    return _nulls(rng, entry, ("protocol", "port", "endPort"))


def _rule(rng: random.Random, peers_key: str) -> dict:
    rule: dict = {}
    shape = rng.random()
    if shape < 0.05:
        rule[peers_key] = []  # empty: the same as missing, every peer
    elif shape >= 0.2:
        rule[peers_key] = [_peer(rng) for _ in range(rng.randint(1, 2))]
    shape = rng.random()
    if shape < 0.05:
        rule["ports"] = []
    elif shape >= 0.4:
        rule["ports"] = [_port(rng) for _ in range(rng.randint(1, 2))]
    return _nulls(rng, rule, (peers_key, "ports"))


def _policy(rng: random.Random, name: str, namespace: str) -> dict:
    spec: dict = {"podSelector": _selector(rng, POD_LABELS)}
    if spec["podSelector"] == {} and rng.random() < 0.2:
        del spec["podSelector"]  # optional: "defaults to an empty selector"
    if rng.random() < 0.1:  # a default deny
        spec["podSelector"] = {}
        spec["policyTypes"] = rng.choice((["Ingress"], ["Egress"], ["Ingress", "Egress"]))
        return {"metadata": {"name": name, "namespace": namespace}, "spec": spec}
    for direction, peers_key in (("ingress", "from"), ("egress", "to")):
        shape = rng.choices(("missing", "empty", "rules"), weights=(3, 2, 5))[0]
        if shape == "empty":
            spec[direction] = []
        elif shape == "rules":
            spec[direction] = [_rule(rng, peers_key) for _ in range(rng.randint(1, 3))]
    if rng.random() < 0.5:
        spec["policyTypes"] = rng.choice(([], ["Ingress"], ["Egress"], ["Ingress", "Egress"]))
    _nulls(rng, spec, ("podSelector", "ingress", "egress", "policyTypes"))
    return {"metadata": {"name": name, "namespace": namespace}, "spec": spec}


def _container_ports(rng: random.Random) -> list[dict]:
    ports: list[dict] = []
    names: set[str] = set()
    taken: set[tuple[int, str]] = set()
    for _ in range(rng.randint(0, 3)):
        number, name = rng.choice(PORTS)
        protocol = rng.choices(PROTOCOLS, weights=(3, 2, 1))[0]
        if (number, protocol) in taken:
            continue
        taken.add((number, protocol))
        entry: dict = {"containerPort": number}
        if protocol != "TCP" or rng.random() < 0.5:
            entry["protocol"] = protocol
        if protocol != "TCP" and name in names:
            name = f"{name}-{protocol.lower()}"
        if rng.random() < 0.8 and name not in names:
            names.add(name)
            entry["name"] = name
        ports.append(_nulls(rng, entry, ("protocol",)))
    return ports


def _pod(rng: random.Random, index: int, namespaces: list[str]) -> dict:
    namespace = rng.choice(namespaces)
    labels = {k: rng.choice(v) for k, v in POD_LABELS.items() if rng.random() < 0.7}
    ports = _container_ports(rng)
    split = rng.randint(0, len(ports))  # some pods spread their ports over two containers
    containers = [{"name": "main", "image": "busybox", "ports": ports[:split]}]
    if ports[split:]:
        containers.append({"name": "side", "image": "busybox", "ports": ports[split:]})
    return {
        "metadata": {"name": f"pod{index}", "namespace": namespace, "labels": labels},
        "spec": {"containers": containers},
        "status": {
            "podIP": f"10.244.{NAMESPACES.index(namespace)}.{index + 2}",
            "phase": "Running",
            "conditions": [{"type": "Ready", "status": "True"}],
        },
    }


def _probe_ports(rng: random.Random, target: dict | None) -> list[tuple[int, str]]:
    declared = [
        (p["containerPort"], p.get("protocol") or "TCP")
        for c in (target or {}).get("spec", {}).get("containers", [])
        for p in c.get("ports") or []
    ]
    chosen = []
    for _ in range(2):
        if declared and rng.random() < 0.7:
            chosen.append(rng.choice(declared))
        else:
            number = rng.choice((*(n for n, _ in PORTS), 81, 8443, 30000))
            chosen.append((number, rng.choices(PROTOCOLS, weights=(3, 2, 1))[0]))
    return sorted(set(chosen))


def _probes(rng: random.Random, pods: list[dict]) -> list[Probe]:
    def key(pod: dict) -> str:
        return f"{pod['metadata']['namespace']}/{pod['metadata']['name']}"

    probes = []
    for src in pods:
        for dst in pods:
            if src is dst:
                continue  # a pod reaching itself: see docs/netsim.md, Cross-check
            for port, protocol in _probe_ports(rng, dst):
                probes.append(
                    Probe(
                        source=Endpoint(pod=key(src)),
                        target=Endpoint(pod=key(dst)),
                        port=port,
                        protocol=protocol,
                    )
                )
        outside = Endpoint(ip=rng.choice(EXTERNAL_IPS))
        for port, protocol in _probe_ports(rng, None)[:1]:
            probes.append(
                Probe(source=Endpoint(pod=key(src)), target=outside, port=port, protocol=protocol)
            )
        for port, protocol in _probe_ports(rng, src)[:1]:
            probes.append(
                Probe(source=outside, target=Endpoint(pod=key(src)), port=port, protocol=protocol)
            )
    return probes


def case(seed: int, index: int) -> Case:
    rng = random.Random(seed * 1_000_003 + index)
    names = rng.sample(NAMESPACES, rng.randint(1, 3))
    namespaces = [
        {
            "metadata": {
                "name": n,
                "labels": {
                    k: rng.choice(v) for k, v in NAMESPACE_LABELS.items() if rng.random() < 0.6
                },
            }
        }
        for n in names
    ]
    pods = [_pod(rng, i, names) for i in range(rng.randint(2, 5))]
    policies = [_policy(rng, f"policy{i}", rng.choice(names)) for i in range(rng.randint(0, 4))]
    return Case(
        seed=seed,
        index=index,
        namespaces=namespaces,
        pods=pods,
        policies=policies,
        probes=_probes(rng, pods),
    )


def cases(seed: int, count: int, start: int = 0) -> list[Case]:
    return [case(seed, i) for i in range(start, start + count)]
