"""A run: many trials (tasks by agents by repeats), in parallel, into one directory.

Each worker takes every N-th trial and starts the cluster for its next trial while the
current one runs, so on embedded clusters the start-up is hidden behind agent work.
Trials that end in `error` (the harness or a cluster failed) are retried on a fresh
cluster; their earlier attempts are kept in the trial's result. Trials end in
`TrialResult`s and the run in a `RunResult` (results/).
"""

import contextlib
import dataclasses
import os
import re
import shutil
import sys
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from kubeproof.agents.llm import local
from kubeproof.agents.spec import AgentSpec, parse
from kubeproof.cluster.decoders import prepare_for_threads
from kubeproof.evidence import keys
from kubeproof.evidence import results as signed
from kubeproof.evidence.chain import Recorder
from kubeproof.results import Attempt, RunPaths, RunResult, TrialLine, TrialResult, provenance
from kubeproof.results.run import summarize
from kubeproof.runner.provision import ClusterSource
from kubeproof.runner.trial import Trial, TrialPlan
from kubeproof.tasks import Task


def plan(
    tasks: list[Task],
    agents: list["str | AgentSpec"],
    repeats: int,
    out: Path,
    protocol: bool = False,
) -> list[TrialPlan]:
    resolved = [a if isinstance(a, AgentSpec) else parse(a) for a in agents]
    seen: dict[str, int] = {}
    for i, a in enumerate(resolved):  # two specs with one label get their own directories
        seen[a.label] = seen.get(a.label, 0) + 1
        if seen[a.label] > 1:
            resolved[i] = dataclasses.replace(a, label=f"{a.label}-{seen[a.label]}")
    plans = []
    for task in tasks:
        for agent in resolved:
            for r in range(1, repeats + 1):
                slug = re.sub(r"[^A-Za-z0-9._-]+", "__", task.id)
                where = RunPaths(out).trial(slug, agent.label, r).root
                plans.append(TrialPlan(task, agent.spec, r, where, agent, protocol))
    return plans


@dataclass
class RunOptions:
    jobs: int = 1
    retries: int = 2
    on_start: Callable[[TrialPlan], None] = lambda _p: None
    on_done: Callable[[TrialPlan, TrialResult], None] = lambda _p, _r: None
    stop: threading.Event = field(default_factory=threading.Event)
    signing_key: Ed25519PrivateKey | None = None  # signs every trial's evidence chain


def _prepare(source: ClusterSource, task: Task) -> Future:
    try:
        return source.prepare(task)
    except Exception as exc:  # reported by the trial as its error verdict
        failed: Future = Future()
        failed.set_exception(exc)
        return failed


def execute(
    plans: list[TrialPlan], source: ClusterSource, options: RunOptions
) -> list[TrialResult]:
    """Run the trials; results come back in plan order."""
    prepare_for_threads()
    jobs = max(1, min(options.jobs, source.max_parallel, len(plans) or 1))
    records: list[TrialResult | None] = [None] * len(plans)

    first = {k: _prepare(source, plans[k].task) for k in range(min(jobs, len(plans)))}

    def worker(k: int) -> None:
        mine = list(range(k, len(plans), jobs))
        # clusters starting ahead, by plan index; every worker's first one is asked for
        # before any second one, so no worker waits behind another's prefetch
        started: dict[int, Future] = {k: first[k]} if k in first else {}
        for n, i in enumerate(mine):
            if options.stop.is_set():
                break
            p = plans[i]
            attempts = []
            record = None
            while True:
                options.on_start(p)
                current = started.pop(i, None) or _prepare(source, p.task)
                current.exception()  # wait for this trial's cluster before asking for more
                if options.stop.is_set():  # interrupted while it started: never ran
                    started[i] = current  # stopped below with the others
                    break
                if n + 1 < len(mine) and mine[n + 1] not in started:
                    # the next trial's cluster starts while this one runs
                    started[mine[n + 1]] = _prepare(source, plans[mine[n + 1]].task)
                record = Trial(p, source, current, signing_key=options.signing_key).run()
                if record.verdict != "error" or len(attempts) >= options.retries:
                    break
                if options.stop.is_set():  # no retry once interrupted: `runs resume` does it
                    break
                attempts.append(Attempt(reason=record.reason or "", timings=record.timings))
            if record is None:
                break
            record.attempts = len(attempts) + 1
            if attempts:
                record.earlier_attempts = attempts
                record.write(p.paths.result)
            records[i] = record
            options.on_done(p, record)
        for future in started.values():  # stopped early: started clusters must not leak
            with contextlib.suppress(Exception):
                future.result().stop()

    threads = [threading.Thread(target=worker, args=(k,), name=f"trial-{k}") for k in range(jobs)]
    for th in threads:
        th.start()
    try:
        for th in threads:
            th.join()
    except BaseException:  # Ctrl-C, SIGTERM: no trial starts now; those running finish
        options.stop.set()
        running = sum(th.is_alive() for th in threads)
        print(
            f"kubeproof: stopping after the {running} trial(s) running now; "
            "Ctrl-C again abandons them",
            file=sys.stderr,
        )
        raise
    local.stop_all()  # local model servers (`local:` agents) end with the run
    return [r for r in records if r is not None]


def write_run(
    out: Path,
    meta: dict,
    records: list[TrialResult],
    signing_key: Ed25519PrivateKey | None = None,
) -> RunResult:
    """run.json, and its signed summary: a chain in `out/evidence` whose `result` entry holds
    every trial's line and the summary, so `evidence verify` can tell an edited run.json."""
    paths = RunPaths(out)
    run = RunResult.model_validate(
        {"versions": provenance.harness().model_copy(update={"timing": meta.get("timing")})}
        | meta
        | {
            "ended_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "summary": summarize(records),
            "trials": [_line(r, out) for r in records],
        }
    )
    run.write(paths.result)
    shutil.rmtree(paths.evidence, ignore_errors=True)  # a run directory written again
    with Recorder(paths.evidence, signing_key or keys.load_signing_key()) as recorder:
        recorder.append("result", signed.run_payload(run.record()))
    return run


def _line(r: TrialResult, out: Path) -> TrialLine:
    return TrialLine.model_validate(
        {k: getattr(r, k) for k in (*signed.RUN_TRIAL_FIELDS, "usage")}
        | {
            "seconds": r.timings.total,
            # where its evidence chain must be: `evidence verify RUN` reports one gone missing
            "dir": os.path.relpath(r.dir, out),
            "evidence": r.evidence is not None,
        }
    )
