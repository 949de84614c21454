"""NetworkPolicy as a manifest to write: default deny, one allowed path between two apps, and
a policy with a monitoring namespace and DNS egress. The checks read the policy's fields, and
the runtime truth which paths between the fixture's running pods netsim lets through
(PolicyPaths). The netpol track (kubeproof.netpol) is a different thing: repairing policies
on a running topology."""

import random

from kubeproof.generate import vocab
from kubeproof.generate.draft import Draft, meta, namespace_fixture, ref
from kubeproof.generate.model import (
    Check,
    FieldEquals,
    ListContains,
    MapIncludes,
    NetworkPath,
    PodGroup,
    PolicyPaths,
    Tier,
)
from kubeproof.generate.templates.workloads import IMAGES, _deployment


def networkpolicy_task(rng: random.Random, tier: Tier) -> Draft:
    ns = vocab.namespace(rng)
    team = ns.split("-")[0]
    backend, frontend = rng.sample(vocab.APPS, 2)
    image, port = rng.choice(IMAGES)
    spec: dict = {"podSelector": {}, "policyTypes": ["Ingress"]}
    name = "default-deny-ingress" if tier is Tier.easy else f"{backend}-ingress"
    obj = {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
           "metadata": meta(name, ns), "spec": spec}  # fmt: skip
    target = ref(obj)
    fixtures = [namespace_fixture(ns), _deployment(backend, ns, image, 2),
                _deployment(frontend, ns, "nginx:1.27", 1)]  # fmt: skip
    if tier is Tier.easy:
        checks: list[Check] = [
            FieldEquals(target=target, path="spec.podSelector", value={}),
        ]
        ask = "denies all incoming traffic to every pod in the namespace"
        terse = "deny all ingress, all pods"
    else:
        peer = {"podSelector": {"matchLabels": {"app": frontend}}}
        rule: dict = {"from": [peer], "ports": [{"protocol": "TCP", "port": port}]}
        spec["podSelector"] = {"matchLabels": {"app": backend}}
        spec["ingress"] = [rule]
        checks = [
            MapIncludes(target=target, path="spec.podSelector.matchLabels",
                        entries={"app": backend}),
            ListContains(target=target, path="spec.ingress[0].from", item=peer),
            ListContains(target=target, path="spec.ingress[0].ports", item={"port": port}),
        ]  # fmt: skip
        ask = (f"selects the pods labelled app={backend} and allows incoming traffic to them "
               f"only from pods labelled app={frontend} in the same namespace, on TCP port "
               f"{port}")  # fmt: skip
        terse = f"app={backend} ingress only from app={frontend} tcp/{port}"
    if tier is Tier.advanced:
        monitoring = {"namespaceSelector": {"matchLabels": {"team": "monitoring"}}}
        spec["ingress"].append({"from": [monitoring], "ports": [{"protocol": "TCP", "port": 9090}]})
        spec["policyTypes"] = ["Ingress", "Egress"]
        dns = [{"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}]
        spec["egress"] = [{"ports": dns}]
        checks += [
            ListContains(target=target, path="spec.ingress[1].from", item=monitoring),
            ListContains(target=target, path="spec.egress[0].ports", item=dns[0]),
            ListContains(target=target, path="spec.egress[0].ports", item=dns[1]),
        ]  # fmt: skip
        ask += (", and from any namespace labelled team=monitoring on TCP port 9090; their only "
                "outgoing traffic is DNS (UDP and TCP port 53, to anywhere)")  # fmt: skip
        terse += ", + ns team=monitoring tcp/9090; egress only dns 53 udp+tcp"
    checks.append(FieldEquals(target=target, path="spec.policyTypes", value=spec["policyTypes"],
                              unordered=True))  # fmt: skip
    checks.append(PolicyPaths(target=target, paths=_paths(tier, ns, frontend, backend, port)))
    scenario = (f"The {team} team runs {frontend} and {backend} in namespace {ns} and is "
                f"locking down its network.")  # fmt: skip
    return Draft(
        scenario=scenario,
        full=f"{scenario} Create a NetworkPolicy named {name} in {ns} that {ask}.",
        simplified=f"NetworkPolicy {name} in {ns}: {ask}.",
        terse=f"netpol {name} -n {ns}: {terse}",
        objects=[obj],
        checks=checks,
        fixtures=fixtures,
    )


def _paths(tier: Tier, ns: str, frontend: str, backend: str, port: int) -> list[NetworkPath]:
    """The paths the request means between the fixture's pods: the asked port from the
    frontend, and the near misses a wrong policy opens or closes (another port, the way
    back, which only the advanced tier's egress rule closes)."""
    front = PodGroup(namespace=ns, labels={"app": frontend})
    back = PodGroup(namespace=ns, labels={"app": backend})
    opened = tier is not Tier.easy
    return [
        NetworkPath(source=front, destination=back, port=port, allowed=opened),
        NetworkPath(source=front, destination=back, port=port + 1, allowed=False),
        NetworkPath(source=back, destination=front, port=80, allowed=tier is Tier.intermediate),
    ]
