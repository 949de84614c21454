"""Single-shot agents on generate tasks, as trials of a run (docs/generate.md, "Agents and
scores"): every agent is asked once per task for one prompt variant, then the answers are
judged S0-S4 by judge sessions (one cluster per worker, never one per task) and, with an LLM
judge, S5 (Tu; it never changes a stage's verdict), and each (task, agent) becomes a
TrialResult in the run directory RunPaths lays out, so `kubeproof runs` and `kubeproof report`
read it as any other run."""

import dataclasses
import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from kubeproof.agents.spec import AgentSpec
from kubeproof.cluster.base import Cluster
from kubeproof.generate import store
from kubeproof.generate.agentic import explore_in
from kubeproof.generate.live.identity import Evaluator
from kubeproof.generate.live.judge import LiveJudgement
from kubeproof.generate.live.workers import Explorer, Work, judge_all
from kubeproof.generate.llm_judge import Judged, LLMJudge
from kubeproof.generate.model import GeneratedTask, Stage
from kubeproof.generate.single_shot import Answer, Answerer
from kubeproof.results import (
    CheckResult,
    ClusterInfo,
    Decision,
    GenerateOutcome,
    PhaseTimings,
    RunPaths,
    StageOutcome,
    TrialPaths,
    TrialResult,
    Weights,
    provenance,
)
from kubeproof.results.generate import JudgeOutcome, composite

STAGE_NAMES = {
    Stage.s0_extract: "extract",
    Stage.s1_schema: "schema",
    Stage.s2_apply: "apply",
    Stage.s3_objects: "objects",
    Stage.s4_checks: "checks",
}


@dataclasses.dataclass
class Plan:
    """What one run asks: which agents answer which tasks, in which wording, judged where."""

    tasks: list[GeneratedTask]
    agents: list[AgentSpec]
    variant: str
    out: Path
    weights: Weights = dataclasses.field(default_factory=Weights)
    workers: int = 1
    start: Callable[[], Cluster] | None = None  # each worker starts its own cluster
    cluster: Cluster | None = None  # or one given cluster, one worker
    recycle_every: int = 500
    judge: LLMJudge | None = None  # S5: the LLM judge, if one was asked for


def distinct_labels(agents: list[AgentSpec]) -> list[AgentSpec]:
    """Two specs with one label get their own directories (`llm-x`, `llm-x-2`)."""
    seen: dict[str, int] = {}
    out = []
    for a in agents:
        seen[a.label] = seen.get(a.label, 0) + 1
        out.append(
            a if seen[a.label] == 1 else dataclasses.replace(a, label=f"{a.label}-{seen[a.label]}")
        )
    return out


def outcome(
    j: LiveJudgement, variant: str, weights: Weights, judge: JudgeOutcome | None = None
) -> GenerateOutcome:
    """The stages' scores; Tu and its term in P only when the judge gave a quality."""
    passed = {s.stage for s in j.stages if s.passed}
    ev, ov = int(Stage.s2_apply in passed), int(Stage.s3_objects in passed)
    tu = judge.quality if judge is not None else None
    return GenerateOutcome(
        prompt=variant,
        identity=j.identity,
        stages=[
            StageOutcome(
                stage=str(s.stage),
                passed=s.passed,
                reason=s.reason,
                under_grant=s.under_grant,
                over_grant=s.over_grant,
                seconds=s.seconds,
            )
            for s in j.stages
        ],
        failed_at=str(j.failed_at) if j.failed_at else None,
        strict_pass=j.strict_pass,
        ev=ev,
        ov=ov,
        acc=int(Stage.s4_checks in passed),
        tu=tu,  # absent, never imputed, when no judge ran or it failed
        weights=weights,
        p=composite(weights, ev, ov, tu),
        p_terms=["ev", "ov"] + (["tu"] if tu is not None else []),
        under_grant=sum(s.under_grant for s in j.stages),
        over_grant=sum(s.over_grant for s in j.stages),
        extra=[f"{r.kind} {r.namespace + '/' if r.namespace else ''}{r.name}" for r in j.extra],
        tainted=j.tainted,
        judge=judge,
    )


def _verdict(record: TrialResult, j: LiveJudgement, plan: Plan, judge: JudgeOutcome | None) -> None:
    if j.error:
        record.verdict, record.reason = "error", f"judge failed: {j.error}"
        return
    record.generate = outcome(j, plan.variant, plan.weights, judge)
    record.results = [
        CheckResult(name=f"{s.stage} {STAGE_NAMES[s.stage]}", passed=s.passed, reason=s.reason)
        for s in j.stages
    ]
    record.verdict = "resolved" if j.strict_pass else "failed"
    record.score = int(j.strict_pass)
    record.safe = j.tainted is None  # it changed what the judge did not make
    last = j.stages[-1]
    record.reason = (
        "S0-S4 passed"
        if j.strict_pass
        else f"{last.stage} {STAGE_NAMES[last.stage]}: {last.reason}"
    )
    if j.tainted:
        record.warnings = [f"the answer tainted the cluster: {j.tainted}"]
    record.cluster = ClusterInfo(
        name=j.cluster, backend="external" if plan.cluster is not None else "embedded"
    )
    record.timings = PhaseTimings(
        agent=record.timings.agent,
        setup=round(j.setup_seconds, 3),
        verify=round(j.seconds - j.setup_seconds - j.cleanup_seconds, 3),
        teardown=round(j.cleanup_seconds, 3),
        total=round((record.timings.agent or 0.0) + j.seconds, 3),
    )


def _started(
    task: GeneratedTask, agent: AgentSpec, paths: TrialPaths, answer: Answer
) -> TrialResult:
    record = TrialResult(
        task=task.id,
        agent=agent.spec,
        dir=str(paths.root),
        area=task.resource_type,
        difficulty=str(task.tier),
        track="generate",
        tags=[str(task.operation)],
        started_at=datetime.now(UTC).isoformat(timespec="seconds"),
        versions=provenance.harness().model_copy(
            update={
                "task_digest": store.digest(task),
                "agent": provenance.agent_record(agent),
                "seed": agent.llm.seed if agent.llm else None,
            }
        ),
        decision=Decision(outcome="submitted" if answer.text.strip() else "none"),
        agent_info=answer.info,
        usage=answer.usage,
        timings=PhaseTimings(agent=answer.seconds, total=answer.seconds),
    )
    if answer.error:
        record.verdict, record.reason = "error", answer.error
    return record


def _write_files(paths: TrialPaths, answer: Answer) -> None:
    paths.root.mkdir(parents=True, exist_ok=True)
    paths.answer.write_text(answer.text)
    if answer.transcript:
        paths.transcript.write_text(json.dumps(answer.transcript, indent=2))
    turns = answer.turns or ([answer.turn] if answer.turn is not None else [])
    if turns:
        paths.turns.write_text("".join(json.dumps(t) + "\n" for t in turns))
    if answer.error:
        paths.error_log.write_text(answer.error + "\n")


def _verifier_log(paths: TrialPaths, j: LiveJudgement, judged: Judged | None) -> None:
    lines = [f"identity: {j.identity}"]
    lines += [f"{'PASS' if s.passed else 'FAIL'} {s.stage}: {s.reason}" for s in j.stages]
    if j.error:
        lines.append(f"ERROR: {j.error}")
    if judged is not None:
        o = judged.outcome
        said = (
            f"quality {o.quality}, flags {[f.code for f in o.flags]}"
            if o.status == "judged"
            else o.reason
        )
        lines.append(f"S5 {o.status} by {o.judge}{' (cached)' if o.cached else ''}: {said}")
        if judged.exchange is not None:
            paths.judge.write_text(json.dumps(judged.exchange, indent=2))
    paths.verifier_log.write_text("\n".join(lines) + "\n")


def _explorer(answerer: Answerer, task: GeneratedTask, label: str, kept: dict) -> Explorer:
    """An agentic agent as a judge session calls it: its answer kept for the trial's files."""

    def look(evaluator: Evaluator) -> str | None:
        answer = explore_in(answerer, task, evaluator.kubeconfig)  # type: ignore[arg-type]
        kept[task.id, label] = answer
        return None if answer.error else answer.text

    return look


def run(
    plan: Plan,
    answerers: dict[str, Answerer],
    on_done: Callable[[TrialResult], None] | None = None,
) -> list[TrialResult]:
    """Ask every agent (`answerers` by agent label) once per task, judge the answers, write each
    trial's files; results in task order, agents in the order given. An agentic agent
    (`explores`) answers on a judge cluster, after looking at the task's fixtures."""
    records: dict[tuple[str, str], TrialResult] = {}
    texts: dict[tuple[str, str], str] = {}  # the answers, for the LLM judge
    explored: dict[tuple[str, str], Answer] = {}  # the agentic agents' answers, as they come
    agents = {a.label: a for a in plan.agents}
    work: list[Work] = []
    for task in plan.tasks:
        answers, explorers = [], []
        for agent in plan.agents:
            if getattr(answerers[agent.label], "explores", False):
                look = _explorer(answerers[agent.label], task, agent.label, explored)
                explorers.append((agent.label, look))
                continue
            paths = RunPaths(plan.out).trial(task.id, agent.label, 1)
            answer = answerers[agent.label](task, plan.variant)  # type: ignore[call-arg]
            _write_files(paths, answer)
            record = records[task.id, agent.label] = _started(task, agent, paths, answer)
            if answer.error:  # the endpoint failed: nothing to judge
                finish(record, paths, on_done)
            else:
                answers.append((agent.label, answer.text))
                texts[task.id, agent.label] = answer.text
        if answers or explorers:
            work.append(Work(task, answers, explorers))
    judged = (
        judge_all(
            work,
            plan.workers,
            start=plan.start,
            cluster=plan.cluster,
            recycle_every=plan.recycle_every,
        )
        if work
        else ()  # every endpoint failed: no cluster to start
    )
    tasks = {t.id: t for t in plan.tasks}
    try:
        for j in judged:
            key = (j.task_id, j.label)
            paths = RunPaths(plan.out).trial(j.task_id, j.label, 1)
            if key not in records:  # an agentic agent's answer, given on the judge cluster
                answer = explored.get(key) or Answer("", error=j.error)
                _write_files(paths, answer)
                records[key] = _started(tasks[j.task_id], agents[j.label], paths, answer)
                texts[key] = answer.text
                if answer.error:
                    finish(records[key], paths, on_done)
                    continue
            record = records[key]
            s5 = None  # the LLM judge never raises: a failure is its outcome's status
            if plan.judge is not None and not j.error:
                s5 = plan.judge(tasks[j.task_id], texts[key], j.stages)
            _verifier_log(paths, j, s5)
            _verdict(record, j, plan, s5.outcome if s5 else None)
            finish(record, paths, on_done)
    except Exception as exc:  # no cluster would start: the answers not judged are errors
        why = f"judge failed: {type(exc).__name__}: {exc}"
        for task in plan.tasks:
            for agent in plan.agents:
                paths = RunPaths(plan.out).trial(task.id, agent.label, 1)
                if (task.id, agent.label) not in records:
                    answer = explored.get((task.id, agent.label)) or Answer("")
                    _write_files(paths, answer)
                    records[task.id, agent.label] = _started(task, agent, paths, answer)
                record = records[task.id, agent.label]
                if record.verdict is None:
                    record.verdict, record.reason = "error", why
                    finish(record, paths, on_done)
    return [records[t.id, a.label] for t in plan.tasks for a in plan.agents]


def finish(record: TrialResult, paths: TrialPaths, on_done) -> None:
    record.ended_at = datetime.now(UTC).isoformat(timespec="seconds")
    record.write(paths.result)
    if on_done is not None:
        on_done(record)
