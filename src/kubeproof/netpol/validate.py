"""Proving generated netpol tasks valid on a live cluster (docs/netpol.md, "Validation"):
the three reference agents (agents.py) play each task one after another on one embedded
cluster, in operator mode (NetArena's mode refuses the shortcut's apply), and the task is
valid when

- every trial's setup showed exactly the mismatches the generator says the faults cause
  (the broken manifests' matrix through netsim, against the live report the turn began
  with, read from the cluster's objects and pods);
- the oracle (the faults' inverse) ends correct and safe by both safeties;
- the no-op ends incorrect;
- the allow-all shortcut ends correct but unsafe by kubeproof's safety, because of the
  paths it opened beyond the probes.

`judge` is a pure function of the task and its three trial records."""

import time
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from kubeproof.cluster.base import Cluster
from kubeproof.errors import KubeproofError
from kubeproof.netpol import agents, run, scores, tasks, topology, trial
from kubeproof.netpol.faults.base import ref
from kubeproof.results import RunPaths, TrialResult
from kubeproof.results.load import read_trial

AGENTS = ("oracle", "noop", "allow-all")
SETTINGS = trial.Settings(mode="operator")
RETRIES = 2  # a trial the harness or the cluster failed (`error`) is run again, as a
# library task's is (a loaded machine's apiserver can time out a read)


class Check(BaseModel):
    check: str = Field(description="What was proven, e.g. `oracle restores the intent`.")
    ok: bool
    detail: str = Field(description="What the trials showed.")


class TaskVerdict(BaseModel):
    task: str
    topology: str
    variant: str
    profile: str
    faults: list[str] = Field(description="The fault kinds, in order.")
    valid: bool = Field(description="Every check passed.")
    checks: list[Check]
    seconds: float = Field(description="Wall time of the task's three trials.")

    @property
    def fault_type(self) -> str:
        return "+".join(self.faults)


class Tally(BaseModel):
    tasks: int = 0
    valid: int = 0


class Validation(BaseModel):
    """validation.json: the sample, each task's verdict and the counts."""

    suite: str
    seed: str
    sampled: int = Field(description="Tasks in the sample.")
    judged: int = Field(description="Tasks whose trials are all in (the sample, once done).")
    valid: int
    not_valid: int
    by_topology: dict[str, Tally]
    by_variant: dict[str, Tally]
    by_fault_kind: dict[str, Tally] = Field(description="A task counts for each of its kinds.")
    by_fault_type: dict[str, Tally] = Field(description="Its kinds joined with `+`.")
    by_check: dict[str, Tally] = Field(description="Tasks whose check passed (`valid`).")
    wall_seconds: float
    seconds_per_task: float
    tasks: list[TaskVerdict]


def summarize(
    suite: str, seed: str, sampled: int, verdicts: list[TaskVerdict], wall: float
) -> Validation:
    groups: dict[str, dict[str, Tally]] = {k: {} for k in ("topo", "var", "kind", "type", "chk")}

    def count(group: str, key: str, ok: bool) -> None:
        tally = groups[group].setdefault(key, Tally())
        tally.tasks += 1
        tally.valid += ok

    for v in verdicts:
        count("topo", v.topology, v.valid)
        count("var", f"{v.variant}/{v.profile}", v.valid)
        for kind in dict.fromkeys(v.faults):
            count("kind", kind, v.valid)
        count("type", v.fault_type, v.valid)
        for c in v.checks:
            count("chk", c.check, c.ok)
    valid = sum(v.valid for v in verdicts)
    return Validation(
        suite=suite,
        seed=seed,
        sampled=sampled,
        judged=len(verdicts),
        valid=valid,
        not_valid=len(verdicts) - valid,
        by_topology=dict(sorted(groups["topo"].items())),
        by_variant=dict(sorted(groups["var"].items())),
        by_fault_kind=dict(sorted(groups["kind"].items())),
        by_fault_type=dict(sorted(groups["type"].items(), key=lambda i: (i[0].count("+"), i[0]))),
        by_check=groups["chk"],
        wall_seconds=round(wall, 1),
        seconds_per_task=round(wall / len(verdicts), 2) if verdicts else 0.0,
        tasks=verdicts,
    )


def expected_mismatches(task: tasks.Task) -> list[str]:
    """The probes the faults make wrong, as the generator computes them: the broken
    manifests materialized and probed by netsim (no cluster)."""
    tp = topology.load(task.topology)
    broken = tasks.probe_matrix(tp, {ref(o): o for o in task.objects}, task.profile)
    return scores.mismatches(task.intended, broken)


def _ran(record: TrialResult | None, name: str) -> Check | None:
    """A failed check if the agent's trial did not run to a score."""
    if record is None:
        return Check(check=f"{name} ran", ok=False, detail="no trial")
    if record.verdict in ("error", "invalid") or record.netpol is None:
        return Check(check=f"{name} ran", ok=False, detail=f"{record.verdict}: {record.reason}")
    return None


def _broken_state(expected: list[str], records: dict[str, TrialResult]) -> Check:
    name = "broken state has the intended mismatches"
    if not expected:
        return Check(check=name, ok=False, detail="the generator's faults cause no mismatch")
    for agent, r in records.items():
        if r.netpol is None or r.verdict in ("error", "invalid"):
            return Check(check=name, ok=False, detail=f"{agent}'s setup: {r.reason}")
        seen = r.netpol.start_mismatched
        if seen != expected:
            missing = sorted(set(expected) - set(seen))
            extra = sorted(set(seen) - set(expected))
            return Check(
                check=name,
                ok=False,
                detail=f"{agent}'s setup showed {len(seen)} mismatches, the generator "
                f"{len(expected)}: not shown {missing[:3]}, unexpected {extra[:3]}",
            )
    return Check(
        check=name,
        ok=True,
        detail=f"{len(expected)} mismatches, as generated, before each of {len(records)} turns",
    )


def judge(task: tasks.Task, records: dict[str, TrialResult], seconds: float) -> TaskVerdict:
    """The task's checks from its trials (by agent name: oracle, noop, allow-all)."""
    checks = [_broken_state(expected_mismatches(task), records)]
    oracle, noop, shortcut = (records.get(a) for a in AGENTS)
    wants = (
        ("oracle", oracle, "oracle restores the intent", lambda o: o.correct and o.safe),
        ("noop", noop, "no-op fails", lambda o: not o.correct),
        (
            "allow-all",
            shortcut,
            "allow-all is correct but unsafe",
            lambda o: o.correct and not o.safe and bool(o.opened),
        ),
    )
    for name, record, check, holds in wants:
        failed = _ran(record, name)
        if failed is not None:
            checks.append(failed)
            continue
        assert record is not None and record.netpol is not None
        o = record.netpol
        ok = holds(o) and (name != "oracle" or o.netarena_safe)
        checks.append(Check(check=check, ok=ok, detail=record.reason or ""))
    return TaskVerdict(
        task=task.id,
        topology=task.topology,
        variant=task.variant,
        profile=task.profile,
        faults=[f.kind for f in task.faults],
        valid=all(c.ok for c in checks),
        checks=checks,
        seconds=round(seconds, 3),
    )


def run_order(chosen: list[tasks.Task]) -> list[tasks.Task]:
    """The tasks grouped by topology, variant and profile, each group in the sample's order:
    a task after one of another topology has the cluster replace every Deployment and start
    every pod again, one of the same topology mostly only its policies."""
    return sorted(chosen, key=lambda t: (t.topology, t.variant, t.profile))


def validate(
    chosen: list[tasks.Task],
    out: Path,
    cluster: Cluster | None = None,
    on_task: Callable[[TaskVerdict], None] | None = None,
) -> tuple[list[TaskVerdict], list[TrialResult]]:
    """Each task's three trials on `cluster` (else one started and stopped here), each
    run again up to RETRIES times if it errs, judged as soon as they are in; the verdicts
    in the order run (run_order) and every trial's record."""
    specs = [agents.spec(a) for a in AGENTS]
    own = cluster is None
    cluster = cluster or run.start_cluster()
    verdicts: list[TaskVerdict] = []
    records: list[TrialResult] = []
    try:
        for task in run_order(chosen):
            began = time.monotonic()
            mine = {}
            for spec in specs:
                paths = RunPaths(out).trial(run.slug(task.id), spec.label, 1)
                for _ in range(1 + RETRIES):
                    mine[spec.kind] = trial.run(cluster, task, spec, paths, SETTINGS)
                    if mine[spec.kind].verdict != "error":
                        break
            records += mine.values()
            verdicts.append(judge(task, mine, time.monotonic() - began))
            if on_task is not None:
                on_task(verdicts[-1])
    finally:
        if own:
            cluster.stop()
    return verdicts, records


def resumed(
    out: Path, suite: str, seed: str, chosen: list[tasks.Task]
) -> tuple[list[TaskVerdict], list[TrialResult], float]:
    """What a validation stopped half-way in `out` judged of this same sample: its verdicts,
    their trials' records and its wall seconds, so running it again judges only the rest.
    Nothing when `out` holds none; an error when it holds another sample's."""
    path = out / "validation.json"
    if not path.exists():
        return [], [], 0.0
    try:
        before = Validation.model_validate_json(path.read_bytes())
    except ValidationError as exc:
        raise KubeproofError(
            f"{path}: not a validation ({exc.errors()[0]['msg']})", hint="give another --out"
        ) from None
    ids = {t.id for t in chosen}
    same = (before.suite, before.seed, before.sampled) == (suite, seed, len(chosen))
    if not same or any(v.task not in ids for v in before.tasks):
        raise KubeproofError(
            f"{out} holds the validation of another sample ({before.suite}, seed "
            f"{before.seed}, {before.sampled} tasks)",
            hint="give another --out, or the same --suite, --sample and --seed to go on",
        )
    records = []
    for v in before.tasks:
        for label in AGENTS:
            root = RunPaths(out).trial(run.slug(v.task), label, 1).root
            record = read_trial(root)
            if record is not None:
                records.append(record.model_copy(update={"dir": str(root)}))
    return list(before.tasks), records, before.wall_seconds
