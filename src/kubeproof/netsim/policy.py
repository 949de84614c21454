"""NetworkPolicy (networking.k8s.io/v1) as the API defines it.

A pod is isolated for a direction when some policy in its namespace selects it and has that
direction among its policyTypes (defaulted as the apiserver does: Ingress always, Egress
when the policy has egress rules). Traffic in a direction is then allowed only if some rule
of a selecting policy allows it: the union of all policies. A connection needs the source's
egress and the destination's ingress.
"""

import ipaddress
from dataclasses import dataclass

from kubeproof.netsim.objects import Objects, Pod, protocol_of
from kubeproof.netsim.selectors import matches


@dataclass(frozen=True)
class Decision:
    allowed: bool
    reason: str


def policy_types(policy: dict) -> set[str]:
    spec = policy.get("spec") or {}
    if spec.get("policyTypes"):
        return set(spec["policyTypes"])
    return {"Ingress"} | ({"Egress"} if spec.get("egress") else set())


def selecting(objects: Objects, pod: Pod, direction: str) -> list[dict]:
    return [
        p
        for p in objects.policies.get(pod.namespace, [])
        if direction in policy_types(p)
        # optional, "defaults to an empty selector" (k8s.io/api networking/v1 types.go:62-69):
        # absent or null, it selects every pod of the namespace
        and matches((p.get("spec") or {}).get("podSelector") or {}, pod.labels)
    ]


def _in_block(ip: str | None, block: dict) -> bool:
    if not ip:
        return False
    address = ipaddress.ip_address(ip)
    if address not in ipaddress.ip_network(block["cidr"], strict=False):
        return False
    return not any(
        address in ipaddress.ip_network(e, strict=False) for e in block.get("except") or []
    )


def peer_matches(
    objects: Objects, policy_ns: str, peer: dict, other: Pod | None, ip: str | None
) -> bool:
    if peer.get("ipBlock") is not None:  # a null ipBlock is an absent one
        return _in_block(ip, peer["ipBlock"])
    if other is None:
        return False  # pod and namespace selectors select pods only
    ns_selector = peer.get("namespaceSelector")
    if ns_selector is not None:
        ns_ok = matches(ns_selector, objects.namespace_labels(other.namespace))
    else:
        ns_ok = other.namespace == policy_ns
    pod_selector = peer.get("podSelector")
    return ns_ok and (pod_selector is None or matches(pod_selector, other.labels))


def port_matches(
    rule_ports: list[dict] | None, port: int, protocol: str, destination: Pod | None
) -> bool:
    if not rule_ports:
        return True
    for entry in rule_ports:
        if protocol_of(entry) != protocol:
            continue
        if "port" not in entry or entry["port"] is None:
            return True
        value = entry["port"]
        if isinstance(value, str) and not value.isdigit():
            if destination is not None and destination.named_port(value, protocol) == port:
                return True
            continue
        low = int(value)
        if low <= port <= int(entry.get("endPort") or low):
            return True
    return False


def evaluate(
    objects: Objects,
    direction: str,
    subject: Pod,
    peer: Pod | None,
    peer_ip: str | None,
    port: int,
    protocol: str,
    destination: Pod | None,
) -> Decision:
    """May `subject` send (Egress) to / receive (Ingress) from `peer` on port/protocol?"""
    policies = selecting(objects, subject, direction)
    what = "egress" if direction == "Egress" else "ingress"
    if not policies:
        return Decision(True, f"{subject.key} is not isolated for {what}")
    rules_key = "egress" if direction == "Egress" else "ingress"
    peers_key = "to" if direction == "Egress" else "from"
    for policy in policies:
        name = (
            f"{policy['metadata'].get('namespace', subject.namespace)}/{policy['metadata']['name']}"
        )
        for index, rule in enumerate(policy["spec"].get(rules_key) or []):
            peers = rule.get(peers_key)
            if peers and not any(
                peer_matches(objects, subject.namespace, p, peer, peer_ip) for p in peers
            ):
                continue
            if not port_matches(rule.get("ports"), port, protocol, destination):
                continue
            return Decision(True, f"{what} allowed by {name} rule {index}")
    names = ", ".join(sorted(f"{p['metadata']['name']}" for p in policies))
    other = peer.key if peer else peer_ip
    return Decision(
        False,
        f"{subject.key} is isolated for {what} by NetworkPolicy {names} "
        f"in {subject.namespace}, and no rule allows {other} on "
        f"{port}/{protocol}",
    )
