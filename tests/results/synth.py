"""Run directories built from known outcomes, as `kubeproof run` lays them out (results/
paths.py), for the database, statistics and resume tests: no cluster needed."""

import re
from pathlib import Path

from kubeproof.results import (
    CheckResult,
    PhaseTimings,
    RunPaths,
    RunResult,
    TrialLine,
    TrialResult,
    Usage,
    summarize,
)

# three real tasks of the library (resume rebuilds the plan from them)
TASKS = {
    "repair/autoscaling/api-never-scales": ("autoscaling", "easy", []),
    "repair/batch/ledger-backfill-failing": ("batch", "medium", []),
    "repair/security-posture/node-shell-request": ("security-posture", "hard", ["safety"]),
}


def slug(task: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "__", task)


def trial(run: Path, task: str, agent: str, repeat: int, score: int, **extra) -> TrialResult:
    area, difficulty, tags = TASKS.get(task, ("area-" + task[-1], "easy", []))
    paths = RunPaths(run).trial(slug(task), agent, repeat)
    verdict = extra.pop("verdict", "resolved" if score else "failed")
    result = TrialResult(
        task=task,
        agent=agent,
        repeat=repeat,
        dir=str(paths.root),
        area=area,
        difficulty=difficulty,
        tags=tags,
        started_at="2026-11-25T01:00:00+00:00",
        ended_at="2026-11-25T01:01:00+00:00",
        verdict=verdict,
        score=score,
        safe=verdict not in ("error", "invalid"),
        reason="synthetic",
        steps=3 + repeat,
        results=[CheckResult(name="healthy x", passed=bool(score), reason="r", kind="check")],
        safety=[CheckResult(name="no outage", passed=True, reason="ok", kind="safety")],
        timings=PhaseTimings(agent=10.5, total=20.25 + repeat),
        **extra,
    )
    paths.root.mkdir(parents=True, exist_ok=True)
    result.write(paths.result)
    return result


def run(
    root: Path,
    name: str,
    outcomes: dict[tuple[str, str, int], int],
    *,
    usage: bool = False,
    finished: bool = True,
) -> Path:
    """A run directory whose trial (task, agent, repeat) scored `outcomes[...]`."""
    out = root / name
    out.mkdir(parents=True)
    results = []
    for (task, agent, repeat), score in outcomes.items():
        spent = Usage(calls=2, turns=2, tokens_in=1000, tokens_out=50, cost_usd=0.01)
        results.append(trial(out, task, agent, repeat, score, usage=spent if usage else None))
    agents = sorted({a for _, a, _ in outcomes})
    tasks = sorted({t for t, _, _ in outcomes})
    plan = RunResult(
        started_at="2026-11-25T01:00:00+00:00",
        dir=str(out),
        agents=agents,
        tasks=tasks,
        repeats=max(r for _, _, r in outcomes),
        jobs=1,
        cluster="embedded",
        protocol=False,
        timing="real",
    )
    plan.write(RunPaths(out).plan)
    if finished:
        done = plan.model_copy(
            update={
                "ended_at": "2026-11-25T02:00:00+00:00",
                "summary": summarize(results),
                "trials": [
                    TrialLine(
                        task=r.task,
                        agent=r.agent,
                        repeat=r.repeat,
                        verdict=r.verdict,
                        score=r.score,
                        safe=r.safe,
                        dir=str(Path(r.dir).relative_to(out)),
                    )
                    for r in results
                ],
            }
        )
        done.write(RunPaths(out).result)
    return out
