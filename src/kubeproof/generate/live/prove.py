"""The validity proof of generated tasks on a live cluster (issue 18's acceptance): for
every task, the reference passes every stage, an empty answer fails S0, and each mutant
fails at the stage it targets. Any other outcome is a generator bug (or, with `error`, a
judge failure); either makes the proof fail."""

import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from kubeproof.cluster.base import Cluster
from kubeproof.errors import KubeproofError
from kubeproof.generate.live.judge import LiveJudgement
from kubeproof.generate.live.workers import Work, judge_all
from kubeproof.generate.model import GeneratedTask, Stage
from kubeproof.generate.mutants import LIVE_ONLY

REFERENCE, EMPTY, MUTANT = "reference", "empty", "mutant:"


def work(task: GeneratedTask) -> Work:
    """The answers the proof judges for one task, reference first."""
    answers = [(REFERENCE, task.reference), (EMPTY, "")]
    answers += [(MUTANT + m.operator, m.answer) for m in task.mutants]
    return Work(task, answers)


def wanted(task: GeneratedTask, label: str) -> Stage | None:
    """The stage the answer must fail at; None for one that must pass every stage."""
    if label == REFERENCE:
        return None
    if label == EMPTY:
        return Stage.s0_extract
    operator = label.removeprefix(MUTANT)
    return next(m.fails_at for m in task.mutants if m.operator == operator)


class Outcome(BaseModel):
    task_id: str
    label: str
    want: Stage | None = Field(description="Where the answer must fail; None: pass all.")
    got: Stage | None = Field(description="Where it failed; None: passed all.")
    reason: str = Field(description="The last stage's reason, or the judge's error.")
    error: str | None = None


class Proof(BaseModel):
    """The counts a proof reports; `bugs` are the answers judged otherwise than wanted."""

    tasks: int
    answers: int
    references_passed: int
    empties_failed_s0: int
    mutants: int
    mutants_caught: int = Field(description="Mutants that failed at the stage they target.")
    by_operator: dict[str, list[int]] = Field(description="operator -> [caught, made].")
    bugs: list[Outcome]
    errors: int = Field(description="Answers the judge could not judge (cluster trouble).")
    live_only: int = Field(
        default=0,
        description="Offline: mutants only runtime truth catches, left unjudged (not counted "
        "in mutants); live, every mutant is judged and this is 0.",
    )
    workers: int
    seconds: float
    stage_seconds: dict[str, float] = Field(
        description="Mean seconds per judged answer: each stage, setup and cleanup."
    )

    @property
    def valid(self) -> bool:
        return not self.bugs


def outcome(task: GeneratedTask, j: LiveJudgement) -> Outcome:
    last = j.stages[-1].reason if j.stages else ""
    return Outcome(
        task_id=task.id,
        label=j.label,
        want=wanted(task, j.label),
        got=j.failed_at,
        reason=j.error or last,
        error=j.error,
    )


def stage_means(judgements: list[LiveJudgement]) -> dict[str, float]:
    sums: dict[str, float] = defaultdict(float)
    for j in judgements:
        for s in j.stages:
            sums[s.stage.value] += s.seconds or 0.0
        sums["setup"] += j.setup_seconds
        sums["cleanup"] += j.cleanup_seconds
        sums["total"] += j.seconds
    return {k: round(v / max(len(judgements), 1), 4) for k, v in sums.items()}


def summarise(
    tasks: dict[str, GeneratedTask], judgements: list[LiveJudgement], workers: int, seconds: float
) -> Proof:
    outcomes = [outcome(tasks[j.task_id], j) for j in judgements]
    mutants = [o for o in outcomes if o.label.startswith(MUTANT)]
    by_operator: dict[str, list[int]] = {}
    for o in mutants:
        row = by_operator.setdefault(o.label.removeprefix(MUTANT), [0, 0])
        row[0] += o.got == o.want and o.error is None
        row[1] += 1
    return Proof(
        tasks=len({o.task_id for o in outcomes}),
        answers=len(outcomes),
        references_passed=sum(
            o.label == REFERENCE and o.got is None and not o.error for o in outcomes
        ),
        empties_failed_s0=sum(o.label == EMPTY and o.got == Stage.s0_extract for o in outcomes),
        mutants=len(mutants),
        mutants_caught=sum(o.got == o.want and o.error is None for o in mutants),
        by_operator=dict(sorted(by_operator.items())),
        bugs=[o for o in outcomes if o.got != o.want or o.error],
        errors=sum(o.error is not None for o in outcomes),
        workers=workers,
        seconds=round(seconds, 3),
        stage_seconds=stage_means(judgements),
    )


def prove(
    tasks: Iterable[GeneratedTask],
    workers: int = 1,
    *,
    start: Callable[[], Cluster] | None = None,
    cluster: Cluster | None = None,
    recycle_every: int = 0,
    progress: Callable[[LiveJudgement], None] | None = None,
    journal: Path | None = None,
) -> Proof:
    """Judge every task's answers and sum up. With `journal`, each judgement is appended to
    it as it is made, and the tasks it already holds whole (every answer, none a judge
    error) are not judged again: a proof of hours that is stopped loses nothing."""
    began = time.monotonic()
    chosen = {t.id: t for t in tasks}
    judged = read_journal(journal, chosen) if journal is not None else []
    done = {j.task_id for j in judged}
    items = [work(t) for t in chosen.values() if t.id not in done]
    sink = journal.open("a", encoding="utf-8") if journal is not None else None
    try:
        for j in judge_all(
            items, workers, start=start, cluster=cluster, recycle_every=recycle_every
        ):
            judged.append(j)
            if sink is not None:
                sink.write(j.model_dump_json(exclude={"strict_pass"}) + "\n")
                sink.flush()
            if progress:
                progress(j)
    finally:
        if sink is not None:
            sink.close()
    return summarise(chosen, judged, workers, time.monotonic() - began)


def read_journal(path: Path, chosen: dict[str, GeneratedTask]) -> list[LiveJudgement]:
    """The judgements of `chosen` tasks a journal holds for every one of their answers,
    none of them a judge error (such a task is judged again, whole). A line that is not a
    judgement is an error naming the file and line: the journal is not to be guessed at."""
    if not path.exists():
        return []
    by_task: dict[str, dict[str, LiveJudgement]] = defaultdict(dict)
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                j = LiveJudgement.model_validate_json(line)
            except ValidationError as exc:
                first = exc.errors()[0]
                where = ".".join(str(p) for p in first["loc"])
                raise KubeproofError(
                    f"{path}:{number}: not a judgement ({where}: {first['msg']}); "
                    "name another --journal, or remove this line"
                ) from None
            if j.task_id in chosen:
                by_task[j.task_id][j.label] = j  # a later judgement of an answer wins
    kept: list[LiveJudgement] = []
    for task_id, answers in by_task.items():
        labels = [label for label, _ in work(chosen[task_id]).answers]
        if all(label in answers and answers[label].error is None for label in labels):
            kept += [answers[label] for label in labels]
    return kept


def prove_offline(tasks: Iterable[GeneratedTask]) -> Proof:
    """The same proof without a cluster: every answer through the offline judge (S2 only
    where it needs no apiserver; docs/generate.md). Seconds, not hours, for a whole suite;
    the live proof is the one that counts."""
    from kubeproof.generate.live.judge import identity_label
    from kubeproof.generate.offline import judge

    began = time.monotonic()
    chosen = {t.id: t for t in tasks}
    judged = []
    live_only = 0
    for task in chosen.values():
        for label, answer in work(task).answers:
            if label.removeprefix(MUTANT) in LIVE_ONLY:
                live_only += 1  # passes every offline stage by construction
                continue
            clock = time.monotonic()
            verdict = judge(task, answer)
            judged.append(
                LiveJudgement(
                    stages=verdict.stages,
                    failed_at=verdict.failed_at,
                    task_id=task.id,
                    label=label,
                    identity=identity_label(task),
                    seconds=round(time.monotonic() - clock, 4),
                )
            )
    proof = summarise(chosen, judged, 0, time.monotonic() - began)
    proof.live_only = live_only
    return proof
