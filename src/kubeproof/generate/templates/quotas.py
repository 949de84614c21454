"""ResourceQuota and LimitRange: a namespace's budget and its containers' defaults, checked
as Quantities (`8` CPUs is `8000m`, `8Gi` is `8192Mi`). Used by the namespace template's
advanced tier and by the resourcequota type of its own."""

import random
from dataclasses import dataclass

from kubeproof.generate import vocab, wording
from kubeproof.generate.draft import Draft, meta, namespace_fixture, ref
from kubeproof.generate.model import Check, FieldEquals, Tier

HARD = ("requests.cpu", "requests.memory", "limits.memory", "pods")


@dataclass
class Made:
    obj: dict
    checks: list[Check]
    ask: str
    terse: str


def quota(rng: random.Random, ns: str, keys: tuple[str, ...]) -> Made:
    cpu, memory = rng.choice((2, 4, 8, 16)), rng.choice((4, 8, 16, 32))
    pods = rng.choice((10, 20, 50, 100))
    every = {
        "requests.cpu": (str(cpu), f"{cpu} CPUs requested"),
        "requests.memory": (f"{memory}Gi", f"{memory}Gi of memory requested"),
        "limits.memory": (f"{memory * 2}Gi", f"{memory * 2}Gi memory limits"),
        "pods": (str(pods), f"{pods} pods"),
        "count/configmaps": ("50", "50 ConfigMaps"),
        "services": ("10", "10 Services"),
    }
    hard = {k: every[k][0] for k in keys}
    obj = {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": meta(f"{ns}-quota", ns),
           "spec": {"hard": hard}}  # fmt: skip
    checks: list[Check] = [
        FieldEquals(target=ref(obj), path=f'spec.hard["{k}"]', value=v, quantity=True)
        for k, v in hard.items()
    ]
    ask = f"a ResourceQuota named {ns}-quota capping " + ", ".join(every[k][1] for k in keys)
    return Made(obj, checks, ask, f"quota {ns}-quota {wording.pairs(hard)}")


def limit_range(rng: random.Random, ns: str, with_max: bool = False) -> Made:
    cpu = rng.choice(("250m", "500m", "1"))
    memory = rng.choice(("256Mi", "512Mi", "1Gi"))
    request_cpu, request_memory = rng.choice(("100m", "200m")), rng.choice(("128Mi", "256Mi"))
    item: dict = {"type": "Container", "default": {"cpu": cpu, "memory": memory},
                  "defaultRequest": {"cpu": request_cpu, "memory": request_memory}}  # fmt: skip
    ask = (f"a LimitRange named {ns}-limits where containers default to limits of cpu {cpu} "
           f"and memory {memory}, and requests of cpu {request_cpu} and memory "
           f"{request_memory}")  # fmt: skip
    terse = (f"limitrange {ns}-limits default {wording.pairs(item['default'])} "
             f"req {wording.pairs(item['defaultRequest'])}")  # fmt: skip
    if with_max:
        item["max"] = {"memory": "2Gi"}
        ask += ", and no container may have a memory limit over 2Gi"
        terse += " max memory=2Gi"
    obj = {"apiVersion": "v1", "kind": "LimitRange", "metadata": meta(f"{ns}-limits", ns),
           "spec": {"limits": [item]}}  # fmt: skip
    checks: list[Check] = [
        FieldEquals(target=ref(obj), path=f"spec.limits[0].{part}.{res}", value=value,
                    quantity=True)
        for part in ("default", "defaultRequest", "max")
        for res, value in (item.get(part) or {}).items()
    ]  # fmt: skip
    return Made(obj, checks, ask, terse)


def resourcequota_task(rng: random.Random, tier: Tier) -> Draft:
    ns = vocab.namespace(rng)
    team = ns.split("-")[0]
    keys = {
        Tier.easy: ("requests.cpu", "pods"),
        Tier.intermediate: ("requests.cpu", "requests.memory", "limits.memory", "pods",
                            "services", "count/configmaps"),
        Tier.advanced: HARD,
    }[tier]  # fmt: skip
    made = [quota(rng, ns, keys)]
    if tier is Tier.advanced:
        made.append(limit_range(rng, ns, with_max=True))
    asks = " and ".join(m.ask for m in made)
    scenario = f"The {team} team shares the cluster; namespace {ns} gets a budget."
    return Draft(
        scenario=scenario,
        full=f"{scenario} In the existing namespace {ns}, create {asks}.",
        simplified=f"In namespace {ns}: {asks}.",
        terse=f"-n {ns}: " + "; ".join(m.terse for m in made),
        objects=[m.obj for m in made],
        checks=[c for m in made for c in m.checks],
        fixtures=[namespace_fixture(ns)],
    )
