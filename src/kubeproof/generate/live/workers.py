"""Answers judged by several judge sessions at once, each on its own cluster: the speed
part of the generate track (one cluster per worker, never one per task). Work is handed
out a task at a time, with all of that task's answers, so its fixtures are made once."""

import queue
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from kubeproof.cluster.base import Cluster
from kubeproof.generate.live.identity import Evaluator
from kubeproof.generate.live.judge import LiveJudgement, identity_label
from kubeproof.generate.live.session import JudgeSession
from kubeproof.generate.model import RUNTIME_CHECKS, GeneratedTask

# an agentic agent on a judge cluster: given the evaluation identity, its answer's text, or
# None when it has none to judge (its model endpoint failed)
Explorer = Callable[[Evaluator], str | None]


@dataclass
class Work:
    """One task and the answers to judge for it, as (label, answer), and the agents that
    answer only after looking at the task's fixtures, as (label, explorer)."""

    task: GeneratedTask
    answers: list[tuple[str, str]]
    explorers: list[tuple[str, Explorer]] = field(default_factory=list)


def explored(session: JudgeSession, task: GeneratedTask, label: str, look: Explorer):
    """An agentic agent's answer, judged; a failure to explore is the harness's error."""
    try:
        text = session.explore(task, look)
    except Exception as exc:
        text, why = None, f"exploring failed: {type(exc).__name__}: {exc}"
    else:
        why = "the agent gave no answer to judge: its model endpoint failed"
    if text is None:
        return LiveJudgement(
            stages=[], failed_at=None, task_id=task.id, label=label,
            identity=identity_label(task), error=why,
        )  # fmt: skip
    return session.judge(task, text, label)


# simulated nodes of a judge cluster whose tasks carry runtime checks: one holds every
# template's pods (its 4 CPUs fit the largest Deployment's requests, 5 x 500m)
RUNTIME_NODES = 1


def nodes_for(tasks: Iterable[GeneratedTask]) -> int:
    """The nodes a judge cluster needs for these tasks: none when no task carries a runtime
    check (the stages read the API only, and a cluster starts faster without nodes)."""
    runtime = any(isinstance(c, RUNTIME_CHECKS) for t in tasks for c in t.checks)
    return RUNTIME_NODES if runtime else 0


def embedded(nodes: int = 0, attempts: int = 3) -> Callable[[], Cluster]:
    """How a worker starts its cluster: an embedded control plane with `nodes` simulated
    nodes (nodes_for: none unless runtime checks need them), tried again when a start fails
    (on a loaded machine a controller can give up waiting for the apiserver)."""

    def start() -> Cluster:
        from kubeproof.cluster import EmbeddedCluster
        from kubeproof.errors import KubeproofError

        for attempt in range(attempts):
            try:
                return EmbeddedCluster(nodes=nodes).start()
            except KubeproofError:
                if attempt == attempts - 1:
                    raise
        raise AssertionError("unreachable")

    return start


def judge_all(
    work: Iterable[Work],
    workers: int = 1,
    *,
    start: Callable[[], Cluster] | None = None,
    cluster: Cluster | None = None,
    recycle_every: int = 0,
    runtime_truth: bool = True,
) -> Iterator[LiveJudgement]:
    """Every answer's judgement, as they finish. Give `cluster` (one worker judges on it) or
    `start` (each worker starts and stops its own, recycled every `recycle_every` answers).
    Without `runtime_truth`, runtime checks are reported as not run."""
    if cluster is not None and workers != 1:
        raise ValueError("one given cluster takes one worker")
    todo: queue.Queue[Work | None] = queue.Queue()
    for item in work:
        todo.put(item)
    for _ in range(workers):
        todo.put(None)
    done: queue.Queue[LiveJudgement | BaseException | None] = queue.Queue()

    def worker() -> None:
        try:
            with JudgeSession(
                cluster, start=start, recycle_every=recycle_every, runtime_truth=runtime_truth
            ) as session:
                while (item := todo.get()) is not None:
                    for label, answer in item.answers:
                        done.put(session.judge(item.task, answer, label))
                    for label, look in item.explorers:
                        done.put(explored(session, item.task, label, look))
        except BaseException as exc:  # handed to the caller, who raises it
            done.put(exc)
        finally:
            done.put(None)

    threads = [
        threading.Thread(target=worker, name=f"judge-{i}", daemon=True) for i in range(workers)
    ]
    for thread in threads:
        thread.start()
    running = workers
    try:
        while running:
            got = done.get()
            if got is None:
                running -= 1
            elif isinstance(got, BaseException):
                raise got
            else:
                yield got
    finally:
        while not todo.empty():  # the others stop at their next task
            todo.get_nowait()
        for _ in range(workers):
            todo.put(None)
        for thread in threads:
            thread.join()
