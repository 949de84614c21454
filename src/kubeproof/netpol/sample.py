"""Seeded samples of netpol tasks, stratified, for `kubeproof tasks validate --suite`.

A suite is a space of task ids (docs/netpol.md, "Validation"): `netarena-k8s`, NetArena's 15
error types on Online Boutique (ingress variant, NetArena's probes), any seed; `netpol`,
every topology, baseline variant and probe profile with every fault kind, alone or paired. A
stratum is a topology and a fault type (in `netpol` a kind, which a pair's first fault is;
in `netarena-k8s` one of the 15 types). A sample of N visits the strata in an order drawn
from the seed (the topologies in turn), one task each, then again, and so on; within a
stratum the variant, the profile, the second fault (half the draws) and the task's seed come
from the same random source, the variant and profile among those where the stratum's fault
shows. A draw whose faults do not show (tasks.NotApplicable: a second fault with nothing to
change, or one that undoes the first) is drawn again; a stratum whose fault shows nowhere (a
version label on a topology with one version per app) is left out. So the same suite, N and
seed give the same task ids, and every topology and fault type is in a sample of at least as
many tasks as there are strata."""

import itertools
from dataclasses import dataclass
from functools import cache
from random import Random

from kubeproof.netpol import baseline, faults, tasks, topology

SUITES = {
    "netarena-k8s": "NetArena's 15 error types (5 kinds and their 10 pairs) on Online "
    "Boutique, ingress variant, NetArena's probes; any seed",
    "netpol": "every topology, baseline variant and probe profile, every fault kind alone "
    "or paired; any seed",
}
SEEDS = 1000  # a draw's task seed is below this
TRIES = 8  # draws per visit before the stratum is skipped this round


@dataclass(frozen=True)
class Stratum:
    topology: str
    fault_type: str  # a kind, or NetArena's kinds joined with `+`


def strata(suite: str) -> list[Stratum]:
    """The suite's strata, in a fixed order."""
    if suite == "netarena-k8s":
        types = [[k] for k in faults.NETARENA]
        types += [list(pair) for pair in itertools.combinations(faults.NETARENA, 2)]
        return [Stratum("online-boutique", "+".join(t)) for t in types]
    if suite == "netpol":
        return [Stratum(t, k) for t in topology.names() for k in faults.KINDS]
    raise KeyError(f"no netpol suite {suite!r} (known: {', '.join(SUITES)})")


def settings(suite: str, name: str) -> list[tuple[str, str]]:
    """The (variant, profile) pairs a task of the suite may have on the topology."""
    if suite == "netarena-k8s":
        return [("ingress", "netarena")]
    profiles = ["full"] + (["netarena"] if topology.load(name).netarena else [])
    return [(v, p) for v in baseline.VARIANTS for p in profiles]


@cache
def generated(task_id: str) -> tasks.Task | None:
    """The task, or None where its faults do not show."""
    try:
        return tasks.generate(task_id)
    except tasks.NotApplicable:
        return None


@cache
def usable(suite: str, stratum: Stratum) -> tuple[tuple[str, str], ...]:
    """The (variant, profile) pairs where the stratum's fault type shows (tried at seed 0:
    whether a kind has a candidate that shows does not hang on the order the seed gives
    its candidates)."""
    kinds = stratum.fault_type.split("+")
    return tuple(
        (v, p)
        for v, p in settings(suite, stratum.topology)
        if generated(tasks.make_id(stratum.topology, v, p, kinds, 0)) is not None
    )


def _partners(suite: str, stratum: Stratum, setting: tuple[str, str]) -> list[str]:
    """The kinds that show alone with this topology and setting, but the stratum's."""
    return [
        k
        for k in faults.KINDS
        if k != stratum.fault_type and setting in usable(suite, Stratum(stratum.topology, k))
    ]


def _draw(suite: str, stratum: Stratum, rng: Random, paired: bool) -> str:
    setting = rng.choice(usable(suite, stratum))
    kinds = stratum.fault_type.split("+")
    partners = _partners(suite, stratum, setting) if paired else []
    if partners:
        kinds.append(rng.choice(partners))
    return tasks.make_id(stratum.topology, *setting, kinds, rng.randrange(SEEDS))


def _visit(suite: str, stratum: Stratum, rng: Random, seen: set[str]) -> tasks.Task | None:
    """One task of the stratum: paired in half the visits of `netpol` (alone if no pair
    drawn shows), None if no draw shows."""
    paired = suite == "netpol" and rng.random() < 0.5
    for shape in (paired, False) if paired else (False,):
        for _ in range(TRIES):
            task_id = _draw(suite, stratum, rng, shape)
            task = None if task_id in seen else generated(task_id)
            if task is not None:
                return task
    return None


def _order(all_strata: list[Stratum], rng: Random) -> list[Stratum]:
    """The strata in the order of the draw: each topology's shuffled, then one of each
    topology in turn (topologies in a shuffled order), so that a sample of a few tasks
    spans the topologies too."""
    by: dict[str, list[Stratum]] = {}
    for s in all_strata:
        by.setdefault(s.topology, []).append(s)
    names = sorted(by)
    rng.shuffle(names)
    for name in names:
        rng.shuffle(by[name])
    rounds = itertools.zip_longest(*(by[n] for n in names))
    return [s for r in rounds for s in r if s is not None]


def sample(suite: str, n: int, seed: str) -> list[tasks.Task]:
    """N tasks of the suite, stratified as the module says; fewer only if the suite's
    strata run out of draws that show."""
    rng = Random(f"netpol-sample/{suite}/{seed}")
    order = _order(strata(suite), rng)
    picked: list[tasks.Task] = []
    seen: set[str] = set()
    while len(picked) < n and order:
        spent = []
        for stratum in order:
            if len(picked) == n:
                break
            task = _visit(suite, stratum, rng, seen) if usable(suite, stratum) else None
            if task is None:
                spent.append(stratum)
            else:
                seen.add(task.id)
                picked.append(task)
        order = [s for s in order if s not in spent]
    return picked
