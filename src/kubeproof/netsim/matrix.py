"""Connectivity matrices: every source against every destination, and the difference
from an intended matrix, each mismatch with its explanation."""

from dataclasses import dataclass

from kubeproof.netsim.connect import Network, Verdict


@dataclass
class Mismatch:
    source: str
    target: str
    intended: bool
    verdict: Verdict


def compute(net: Network, sources: list[str], targets: list[str]) -> dict[tuple[str, str], Verdict]:
    return {(s, t): net.connect(s, t) for s in sources for t in targets}


def default_targets(net: Network, namespaces: list[str]) -> list[str]:
    """Every port of every Service in the namespaces, as `name.namespace:port[/proto]`."""
    targets = []
    for svc in net.objects.services.values():
        meta = svc["metadata"]
        if meta.get("namespace") not in namespaces:
            continue
        for port in (svc.get("spec") or {}).get("ports") or []:
            proto = port.get("protocol", "TCP")
            suffix = "" if proto == "TCP" else f"/{proto}"
            targets.append(f"{meta['name']}.{meta['namespace']}:{port['port']}{suffix}")
    return sorted(targets)


def default_sources(net: Network, namespaces: list[str]) -> list[str]:
    return sorted(p.key for p in net.objects.pods.values() if p.namespace in namespaces and p.ip)


def diff(
    actual: dict[tuple[str, str], Verdict], intended: dict[tuple[str, str], bool]
) -> list[Mismatch]:
    return [
        Mismatch(s, t, want, actual[(s, t)])
        for (s, t), want in intended.items()
        if (s, t) in actual and actual[(s, t)].allowed != want
    ]


def to_json(matrix: dict[tuple[str, str], Verdict]) -> list[dict]:
    return [
        {
            "from": s,
            "to": t,
            "allowed": v.allowed,
            "code": v.code,
            "reason": v.reason,
            "steps": v.steps,
        }
        for (s, t), v in matrix.items()
    ]
