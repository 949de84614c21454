"""Answers judged by several judge sessions at once, each on its own cluster: the speed
part of the generate track (one cluster per worker, never one per task). Work is handed
out a task at a time, with all of that task's answers, so its fixtures are made once."""

import queue
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from kubeproof.cluster.base import Cluster
from kubeproof.generate.live.judge import LiveJudgement
from kubeproof.generate.live.session import JudgeSession
from kubeproof.generate.model import GeneratedTask


@dataclass
class Work:
    """One task and the answers to judge for it, as (label, answer)."""

    task: GeneratedTask
    answers: list[tuple[str, str]]


def embedded(nodes: int = 0, attempts: int = 3) -> Callable[[], Cluster]:
    """How a worker starts its cluster: an embedded control plane (no nodes by default: the
    stages read the API only), tried again when a start fails (on a loaded machine a
    controller can give up waiting for the apiserver)."""

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
) -> Iterator[LiveJudgement]:
    """Every answer's judgement, as they finish. Give `cluster` (one worker judges on it) or
    `start` (each worker starts and stops its own, recycled every `recycle_every` answers)."""
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
            with JudgeSession(cluster, start=start, recycle_every=recycle_every) as session:
                while (item := todo.get()) is not None:
                    for label, answer in item.answers:
                        done.put(session.judge(item.task, answer, label))
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
