"""One netpol trial: one agent's turn at one generated task on a live cluster, scored.

setup (the broken objects put on the cluster, the broken matrix seen live) → the agent's
access → the loop (loop.py: the intent and the current report first, a report after every
command) → scores (scores.py) over the matrices the harness read → trial.json, the
trajectory and verifier.log (every report) in the trial's directory. The cluster is left
holding the agent's end state; the next task's setup replaces it (live.put_objects).

A harness or cluster failure is an `error` verdict; a cluster that never shows the
task's broken matrix makes the trial `invalid`; neither is the agent's fault."""

import hashlib
import time
import traceback
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache

from kubeproof.agents.builtin import Agent
from kubeproof.agents.sandbox import Sandbox
from kubeproof.agents.session import BudgetExhausted, install_tools
from kubeproof.agents.spec import AgentSpec
from kubeproof.cluster.base import Cluster, kubectl_binary
from kubeproof.cluster.external import ExternalCluster
from kubeproof.netpol import (
    access,
    exposure,
    live,
    materialize,
    prompts,
    scores,
    tasks,
    topology,
)
from kubeproof.netpol.agents import build
from kubeproof.netpol.loop import (
    NETARENA_CAP,
    NETARENA_TIMEOUT,
    OPERATOR_CAP,
    IntentReached,
    Mode,
    NetpolSession,
    prompt,
)
from kubeproof.netpol.prompts import Variant
from kubeproof.netpol.report import Report
from kubeproof.results import (
    ClusterInfo,
    Decision,
    PhaseTimings,
    TrialPaths,
    TrialResult,
    provenance,
)
from kubeproof.results.netpol import NetpolOutcome, NetpolStep
from kubeproof.runner.turn import save_session
from kubeproof.scrub import Scrubber

ENDINGS = (["submit"], ["decline"])  # a turn's closing commands, each a step of its own


@dataclass(frozen=True)
class Settings:
    mode: Mode = "operator"
    cap: int | None = None  # default: NetArena's 10, or 30 in operator mode
    explain: bool | None = None  # default: explained in operator mode, not in NetArena's
    command_timeout: float | None = None  # default: NetArena's 10 s, or 60 s
    time_budget: float = 900.0  # seconds for the whole turn
    setup_timeout: float = 120.0
    prompt: Variant = "zeroshot_base"  # NetArena's prompt variants (prompts.py)

    @property
    def iteration_cap(self) -> int:
        return self.cap or (NETARENA_CAP if self.mode == "netarena" else OPERATOR_CAP)

    @property
    def explained(self) -> bool:
        return self.explain if self.explain is not None else self.mode == "operator"

    @property
    def timeout(self) -> float:
        return self.command_timeout or (NETARENA_TIMEOUT if self.mode == "netarena" else 60.0)


@cache
def baseline_paths(name: str, variant: str) -> frozenset[str]:
    """The paths the baseline keeps open beyond the probes (exposure.py)."""
    tp = topology.load(name)
    objects = list(tasks.baseline_objects(tp, variant).values())
    return frozenset(exposure.paths(tp, materialize.materialize(objects)))


def _started(
    task: tasks.Task, agent: AgentSpec, paths: TrialPaths, cluster: Cluster
) -> TrialResult:
    digest = hashlib.sha256(task.canonical_json().encode()).hexdigest()
    return TrialResult(
        task=task.id,
        agent=agent.spec,
        dir=str(paths.root),
        area=task.topology,
        difficulty=f"{len(task.faults)} fault" + ("s" if len(task.faults) > 1 else ""),
        track="netpol",
        tags=[f.kind for f in task.faults],
        started_at=datetime.now(UTC).isoformat(timespec="seconds"),
        cluster=ClusterInfo(name=cluster.name, backend="external")
        if isinstance(cluster, ExternalCluster)
        else ClusterInfo(
            name=cluster.name, backend="embedded", timing=getattr(cluster, "timing", None)
        ),
        versions=provenance.harness().model_copy(
            update={"task_digest": digest, "agent": provenance.agent_record(agent)}
        ),
    )


def run(
    cluster: Cluster,
    task: tasks.Task,
    agent_spec: AgentSpec,
    paths: TrialPaths,
    settings: Settings = Settings(),
    agent: Agent | None = None,
) -> TrialResult:
    """The trial, written to `paths` (trial.json, trajectory.jsonl, verifier.log)."""
    paths.root.mkdir(parents=True, exist_ok=True)
    paths.private.mkdir(parents=True, exist_ok=True)
    record = _started(task, agent_spec, paths, cluster)
    began = time.monotonic()
    try:
        _trial(cluster, task, agent or build(agent_spec, task), paths, settings, record)
    except live.NotBroken as exc:
        record.verdict, record.reason, record.score = "invalid", str(exc), 0
    except Exception as exc:  # the harness or the cluster failed, not the agent
        paths.error_log.write_text(traceback.format_exc())
        record.verdict, record.reason, record.score = "error", f"{type(exc).__name__}: {exc}", 0
    record.timings.total = round(time.monotonic() - began, 3)
    record.ended_at = datetime.now(UTC).isoformat(timespec="seconds")
    record.write(paths.result)
    return record


def _trial(
    cluster: Cluster,
    task: tasks.Task,
    agent: Agent,
    paths: TrialPaths,
    settings: Settings,
    record: TrialResult,
) -> None:
    tp = topology.load(task.topology)
    client = cluster.client()
    t = time.monotonic()
    first = live.setup(client, task, tp, settings.setup_timeout)
    setup = round(time.monotonic() - t, 3)
    t = time.monotonic()
    kubeconfig = access.grant(cluster, tp, paths.agent_kubeconfig)
    granted = round(time.monotonic() - t, 3)
    sandbox = Sandbox(
        kubeconfig,
        paths.home,
        kubectl_binary(),
        timeout=settings.timeout,
        tools=install_tools(paths.tools),
        endpoints=getattr(agent, "endpoints", ()),
    )
    cap, explain = settings.iteration_cap, settings.explained
    session = NetpolSession(
        prompt(
            task.intent,
            first,
            settings.mode,
            cap,
            explain,
            prompts.extra(settings.prompt, task.topology),
        ),
        sandbox,
        max_steps=cap,
        deadline=time.monotonic() + settings.time_budget,
        scrubber=Scrubber.for_harness([cluster.admin_kubeconfig]),
        measure=lambda: live.read_report(client, tp, task.profile),
        mode=settings.mode,
        explain=explain,
    )
    t = time.monotonic()
    ended, why = _act(agent, session)
    turn = round(time.monotonic() - t, 3)
    save_session(paths, record, session)
    t = time.monotonic()
    settled = None if ended == "intent" else live.settled_report(client, task, tp)
    opened = live.open_paths(client, tp)
    outcome = score(task, first, session, ended, opened, settled)
    judged = round(time.monotonic() - t, 3)
    outcome.setup_seconds = setup
    outcome.prompt = settings.prompt
    _verdict(record, outcome, session, why)
    record.timings = PhaseTimings(setup=setup, access=granted, agent=turn, verify=judged)
    record.timings.agent_ready = round(setup + granted, 3)
    _log(paths, first, session)


def _act(agent: Agent, session: NetpolSession) -> tuple[str, str]:
    """Run the agent's turn; how it ended (NetpolOutcome.ended) and why."""
    try:
        agent.act(session)
    except IntentReached as exc:
        return "intent", str(exc)
    except BudgetExhausted as exc:
        if session.turn_over and _still_reached(session):
            return "intent", session.turn_over  # an agent program told so, then refused
        capped = len(session.steps) >= session.max_steps
        return ("cap" if capped else "budget"), str(exc)
    if session.turn_over and _still_reached(session):  # an agent program, told so, exited
        return "intent", session.turn_over
    decision = session.decision
    return decision.outcome, decision.reason


def _still_reached(session: NetpolSession) -> bool:
    """The intent was reached and the last command measured left it so (an agent program
    may remove the refusal the harness put in its way and go on: then its last command
    counts, as any agent's)."""
    last = session.measured[-1] if session.measured else None
    return last is not None and last.mismatches == 0


def score(
    task: tasks.Task,
    first: Report,
    session: NetpolSession,
    ended: str,
    opened: set[str],
    settled: tuple[Report, bool] | None = None,
) -> NetpolOutcome:
    """The turn's scores from the matrices the harness read after each command and, unless
    the turn ended on the intent, once more when the Deployments had rolled out (`settled`):
    correctness and kubeproof's safety read the cluster as it ends up, NetArena's safety and
    iterations the commands."""
    intended, start = task.intended, first.matrix()
    steps = [scores.Step(m.matrix) for m in session.measured]
    ends = steps if settled is None else [*steps, scores.Step(settled[0].matrix())]
    cap = session.max_steps
    safety = scores.kubeproof_safety(
        intended, start, ends, set(baseline_paths(task.topology, task.variant)), opened
    )
    correct = scores.correct(intended, start, ends)
    iterations = scores.iterations(intended, steps, cap)
    if correct and iterations == cap and not scores.correct(intended, start, steps):
        # the last command's rollout reached the intent: its iterations are the commands
        # run, not counting a closing `submit` or `decline` (the harness's, not a change)
        acted = [s for s in session.steps if s.command.split(maxsplit=1)[:1] not in ENDINGS]
        iterations = min(cap, len(acted))
    right = [k for k, want in intended.items() if start.get(k) == want]
    records = []
    for step, m in zip(session.steps, session.measured, strict=True):
        broken = [] if m.matrix is None else [k for k in right if m.matrix.get(k) != intended[k]]
        records.append(
            NetpolStep(
                step=step.index,
                command=step.command,
                mismatches=m.mismatches,
                broken=broken,
                refused=m.refused,
                report_seconds=m.seconds,
            )
        )
    checked = [m.seconds for m in session.measured if m.matrix is not None]
    return NetpolOutcome(
        mode=session.mode,
        topology=task.topology,
        variant=task.variant,
        profile=task.profile,
        faults=[f.kind for f in task.faults],
        seed=task.seed,
        root_causes=[
            f"{c.kind}/{c.namespace or ''}/{c.name} {c.field}".rstrip()
            for f in task.faults
            for c in f.root_causes
        ],
        probes=len(intended),
        start_mismatches=len(scores.mismatches(intended, start)),
        start_mismatched=scores.mismatches(intended, start),
        final_mismatches=len(scores.mismatches(intended, scores.final(start, ends))),
        correct=correct,
        settled=None if settled is None else settled[1],
        netarena_safe=scores.netarena_safe(intended, steps),
        safe=safety.safe,
        broken=safety.broken,
        over_permissive=safety.over_permissive,
        opened=safety.opened,
        iterations=iterations,
        cap=cap,
        commands=len(session.steps),
        rejected=sum(1 for m in session.measured if m.refused),
        ended=ended,
        harness_seconds=round(sum(checked) / len(checked), 4) if checked else 0.0,
        steps=records,
    )


def _verdict(record: TrialResult, o: NetpolOutcome, session: NetpolSession, why: str) -> None:
    record.netpol = o
    outcome = {"intent": "none", "cap": "exhausted", "budget": "exhausted"}.get(o.ended, o.ended)
    if o.ended == "intent":
        why = f"ended by the harness: {why}"
    record.decision = Decision(outcome=outcome, reason=why)
    if session.faults:
        record.agent_faults = list(session.faults)
    record.verdict = "resolved" if o.correct and not session.faults else "failed"
    record.safe = o.safe
    record.score = int(record.verdict == "resolved" and o.safe)
    parts = [
        "correct" if o.correct else f"incorrect: {o.final_mismatches} of {o.probes} probes wrong",
        "safe" if o.safe else "unsafe (ours)",
        "NetArena-safe" if o.netarena_safe else "NetArena-unsafe",
        f"{o.iterations} iterations",
    ]
    if o.broken:
        parts.append(f"broke {len(o.broken)} right probes")
    if o.over_permissive:
        parts.append(f"{len(o.over_permissive)} probes over-permissive")
    if o.opened:
        parts.append(f"opened {len(o.opened)} paths, e.g. {o.opened[0]}")
    record.reason = "; ".join(parts)


def _log(paths: TrialPaths, first: Report, session: NetpolSession) -> None:
    """verifier.log: the report the turn began with and the one after every command."""
    with paths.verifier_log.open("w") as log:
        log.write(f"== start ({len(first.mismatches)} mismatches)\n{first.text()}")
        for step, m in zip(session.steps, session.measured, strict=True):
            log.write(f"== step {step.index}: {step.command}\n")
            log.write(f"refused: {m.refused}\n" if m.refused else m.report)
