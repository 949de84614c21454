"""Resuming a run: the trials that errored or never ran, from the run's own plan.

A run writes its plan (plan.json: tasks, agent specs, repeats, cluster, timing) before its
first trial, and each trial's trial.json when it ends, so a run killed at any moment can be
finished later: the plan is rebuilt exactly as the run built it (same order, same trial
directories), trials that ended with a verdict are kept as they are, and the rest — no
trial.json, one cut short by the kill, or an `error` verdict — run again. run.json is then
written over all of them, as an uninterrupted run would have written it.
"""

from dataclasses import dataclass, field
from pathlib import Path

from kubeproof.agents.spec import AgentsFile, parse
from kubeproof.errors import KubeproofError
from kubeproof.results import RunResult, TrialResult, provenance
from kubeproof.results.load import read_run, read_trial
from kubeproof.runner.plan import TrialPlan
from kubeproof.runner.run import plan
from kubeproof.tasks.select import select

# run.json keys that are the run's outcome, not its plan: write_run computes them afresh
OUTCOME = ("schema_version", "ended_at", "summary", "trials", "versions")


class CannotResume(KubeproofError):
    """The directory holds no plan a run can be resumed from."""


@dataclass
class Resumption:
    out: Path
    run: RunResult  # the plan, from plan.json (or run.json of an older run)
    plans: list[TrialPlan]
    kept: dict[int, TrialResult] = field(default_factory=dict)  # plan index: its result
    todo: dict[int, str] = field(default_factory=dict)  # plan index: why it runs again
    warnings: list[str] = field(default_factory=list)

    @property
    def meta(self) -> dict:
        """The run's plan as `write_run` takes it."""
        return {k: v for k, v in self.run.record().items() if k not in OUTCOME}

    def merge(self, new: list[TrialResult]) -> list[TrialResult]:
        """Every trial's result in plan order: kept ones and the new ones."""
        fresh = {Path(r.dir): r for r in new}
        out = []
        for i, p in enumerate(self.plans):
            found = fresh.get(p.dir) or self.kept.get(i)
            if found is not None:
                out.append(found)
        return out


def why_again(result: TrialResult | None) -> str | None:
    """Why a trial must run again, or None if its result stands."""
    if result is None:
        return "never ran (no readable trial.json)"
    if result.verdict is None:
        return "cut short (no verdict)"
    if result.verdict == "error":
        return f"errored: {result.reason or ''}".rstrip(": ")
    return None


def prepare(out: Path, agents_file: Path | None = None) -> Resumption:
    """What resuming the run in `out` would keep and run again."""
    run = read_run(out)
    if run is None:
        raise CannotResume(f"{out}: no plan.json or run.json: nothing says what the run was")
    if not run.tasks or not run.agents:
        what = "a task validation" if run.validate_ else "a run without tasks or agents"
        raise CannotResume(
            f"{out} is {what}; only `kubeproof run` runs resume",
            hint="validations are re-run with `kubeproof tasks validate`",
        )
    named = AgentsFile.load(agents_file or (Path(run.agents_file) if run.agents_file else None))
    tasks = select(run.tasks)
    plans = plan(
        tasks, [parse(s, named) for s in run.agents], run.repeats or 1, out, bool(run.protocol)
    )
    found = Resumption(out, run, plans)
    digests = {t.id: provenance.task_digest(t.root) for t in tasks}
    changed: set[str] = set()
    for i, p in enumerate(plans):
        result = read_trial(out, str(p.dir.relative_to(out)))  # no symlink followed
        reason = why_again(result)
        if reason is not None or result is None:
            found.todo[i] = reason or ""
            continue
        found.kept[i] = result
        was = result.versions.task_digest if result.versions else None
        if was and was != digests[p.task.id]:
            changed.add(p.task.id)
    if changed:
        found.warnings.append(
            f"{len(changed)} task(s) changed since the run began ({', '.join(sorted(changed))}); "
            "resumed trials run the current version"
        )
    return found
