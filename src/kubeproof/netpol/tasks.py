"""Seeded task generation. A task id names everything that made it:

    netpol/v1/<topology>/<variant>/<profile>/<kind>[+<kind>...]/<seed>

and the same id always gives the same task, byte for byte (the random source is seeded
with the id itself). Each fault is applied in turn to the baseline manifests, choosing
among its candidates the first, in seeded order, that changes the probe matrix."""

import copy
import itertools
from random import Random

from pydantic import BaseModel, Field

from kubeproof.netpol import baseline, intent, inverse, manifests, materialize, report, topology
from kubeproof.netpol.faults import KINDS, NETARENA, Applied, Context
from kubeproof.netpol.faults.base import Objects, ref

GENERATOR = 1
PREFIX = f"netpol/v{GENERATOR}"
SUITES = {"netarena-k8s": "NetArena's 5 error types and their 10 pairs on Online Boutique"}


class NotApplicable(ValueError):
    """The fault has no candidate that changes this topology's probe matrix."""


class Task(BaseModel):
    id: str
    generator: int = GENERATOR
    topology: str
    variant: str = Field(description="The baseline policies: ingress or deny.")
    profile: str = Field(description="The probe set: full, or netarena (NetArena's probes).")
    faults: list[Applied]
    seed: int
    objects: list[dict] = Field(description="The broken manifests the setup applies.")
    fix: inverse.Fix = Field(description="The oracle: the faults' inverse.")
    intended: dict[str, bool] = Field(description="The intended probe matrix.")
    intent: str = Field(description="The intended communication pattern, as the agent reads it.")

    def canonical_json(self) -> str:
        return self.model_dump_json(indent=1) + "\n"


def make_id(name: str, variant: str, profile: str, kinds: list[str], seed: int) -> str:
    return f"{PREFIX}/{name}/{variant}/{profile}/{'+'.join(kinds)}/{seed}"


def parse_id(task_id: str) -> tuple[str, str, str, list[str], int]:
    parts = task_id.split("/")
    if len(parts) != 7 or "/".join(parts[:2]) != PREFIX or not parts[6].isdigit():
        raise ValueError(
            f"not a netpol task id: {task_id!r} ({PREFIX}/<topology>/<variant>/"
            "<profile>/<kind>[+<kind>]/<seed>)"
        )
    kinds = parts[5].split("+")
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        raise ValueError(f"unknown fault kind(s) {', '.join(unknown)} in {task_id}")
    if parts[4] not in ("full", "netarena"):
        raise ValueError(f"unknown probe profile {parts[4]!r} in {task_id}")
    return parts[2], parts[3], parts[4], kinds, int(parts[6])


def baseline_objects(tp: topology.Topology, variant: str) -> Objects:
    objs = manifests.workloads(tp) + baseline.policies(tp, variant)
    return {ref(o): o for o in objs}


def probe_matrix(tp: topology.Topology, objects: Objects, profile: str) -> dict[str, bool]:
    world = materialize.materialize(list(objects.values()))
    return report.compute(tp, world, profile).matrix()  # type: ignore[arg-type]


def generate(task_id: str) -> Task:
    name, variant, profile, kinds, seed = parse_id(task_id)
    tp = topology.load(name)
    rng = Random(task_id)
    ctx = Context(tp, variant)
    base = baseline_objects(tp, variant)
    current = copy.deepcopy(base)
    applied = []
    for kind_name in kinds:
        kind = KINDS[kind_name]
        before = probe_matrix(tp, current, profile)
        candidates = list(kind.offer(current, ctx, rng))
        rng.shuffle(candidates)
        for candidate in candidates:
            trial = copy.deepcopy(current)
            causes = candidate.apply(trial)
            if probe_matrix(tp, trial, profile) != before:
                current = trial
                applied.append(
                    Applied(
                        kind=kind_name,
                        netarena=kind.netarena,
                        params=candidate.params,
                        description=candidate.description,
                        root_causes=causes,
                    )
                )
                break
        else:
            raise NotApplicable(
                f"{kind_name}: no change to {name} ({variant}) shows in its {profile} probes"
            )
    intended = intent.matrix(tp, profile)  # type: ignore[arg-type]
    if probe_matrix(tp, current, profile) == intended:
        raise NotApplicable(f"{'+'.join(kinds)} undo each other on {name} ({variant})")
    return Task(
        id=task_id,
        topology=name,
        variant=variant,
        profile=profile,
        faults=applied,
        seed=seed,
        objects=list(current.values()),
        fix=inverse.fix(base, current),
        intended=intended,
        intent=intent.text(tp),
    )


def suite(name: str, per_type: int = 1, first_seed: int = 0) -> list[str]:
    """The task ids of a suite: `netarena-k8s` is NetArena's 15 error types (5 alone and
    their 10 pairs) on Online Boutique with its per-service policies and its 92 probes,
    `per_type` tasks each."""
    if name not in SUITES:
        raise KeyError(f"no suite {name!r} (known: {', '.join(SUITES)})")
    types = [[k] for k in NETARENA] + [list(c) for c in itertools.combinations(NETARENA, 2)]
    seeds = range(first_seed, first_seed + per_type)
    return [make_id("online-boutique", "ingress", "netarena", t, s) for t in types for s in seeds]
