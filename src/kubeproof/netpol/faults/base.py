"""What a fault is: a kind that offers candidate changes to the manifests, each of which,
applied, names its root causes."""

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from random import Random

from pydantic import BaseModel, Field

from kubeproof.netpol.topology import Topology

Objects = dict[str, dict]  # "Kind/namespace/name" -> object, in manifest order


class RootCause(BaseModel):
    kind: str
    namespace: str | None = None
    name: str
    field: str = Field(
        description="Where in the object, e.g. spec.ingress[0].ports[0].port; "
        "empty: the object itself (one the fault created)."
    )


class Applied(BaseModel):
    kind: str = Field(description="The fault kind, e.g. remove-ingress.")
    netarena: str | None = Field(None, description="NetArena's name for it, if it has one.")
    params: dict = Field(description="What was chosen (policy, apps, new port, ...).")
    description: str = Field(description="What changed, in a sentence (not shown to the agent).")
    root_causes: list[RootCause]


@dataclass(frozen=True)
class Context:
    topology: Topology
    variant: str


@dataclass
class Candidate:
    params: dict
    description: str
    apply: Callable[[Objects], list[RootCause]]  # changes the objects in place


Offer = Callable[[Objects, Context, Random], Iterator[Candidate]]


@dataclass(frozen=True)
class Kind:
    name: str
    summary: str
    offer: Offer
    netarena: str | None = None


KINDS: dict[str, Kind] = {}


def kind(name: str, summary: str, netarena: str | None = None) -> Callable[[Offer], Offer]:
    def register(offer: Offer) -> Offer:
        if name in KINDS:
            raise ValueError(f"fault kind {name} registered twice")
        KINDS[name] = Kind(name, summary, offer, netarena)
        return offer

    return register


def ref(obj: dict) -> str:
    meta = obj["metadata"]
    return f"{obj['kind']}/{meta.get('namespace', '')}/{meta['name']}"


def cause(obj: dict, field: str) -> RootCause:
    meta = obj["metadata"]
    return RootCause(
        kind=obj["kind"], namespace=meta.get("namespace"), name=meta["name"], field=field
    )


def of_kind(objects: Objects, kind_name: str) -> list[dict]:
    return [o for o in objects.values() if o.get("kind") == kind_name]


def app_policies(objects: Objects) -> list[dict]:
    """The per-app policies: named after the app their podSelector picks."""
    return [
        p
        for p in of_kind(objects, "NetworkPolicy")
        if ((p["spec"].get("podSelector") or {}).get("matchLabels") or {}).get("app")
        == p["metadata"]["name"]
    ]


def port_entries(policy: dict, direction: str = "ingress") -> Iterator[tuple[int, int, dict]]:
    for i, rule in enumerate(policy["spec"].get(direction) or []):
        for j, entry in enumerate(rule.get("ports") or []):
            yield i, j, entry


def peers(policy: dict, direction: str = "ingress") -> Iterator[tuple[int, int, dict]]:
    side = "from" if direction == "ingress" else "to"
    for i, rule in enumerate(policy["spec"].get(direction) or []):
        for k, peer in enumerate(rule.get(side) or []):
            yield i, k, peer


def is_name(port: object) -> bool:
    return isinstance(port, str) and not port.isdigit()


def same_namespace_apps(ctx: Context, namespace: str) -> list[str]:
    return [a.name for a in ctx.topology.apps if a.namespace == namespace]


def pick(rng: Random, items: list, count: int) -> list:
    return sorted(rng.sample(items, count)) if len(items) >= count else []
