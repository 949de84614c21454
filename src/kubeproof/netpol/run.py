"""A netpol run: agents by tasks on one embedded cluster (trials one after another, each
task's setup replacing what the last one left), into a run directory RunPaths lays out,
so `kubeproof runs` and `kubeproof report` read it as any other run."""

import re
import tempfile
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from kubeproof.agents.spec import AgentSpec
from kubeproof.cluster import EmbeddedCluster
from kubeproof.cluster.base import Cluster
from kubeproof.netpol import images, tasks, trial
from kubeproof.results import RunPaths, TrialResult

TIMING = "fast"  # the probes need running pods, not the kubelet's real back-offs
NODES = 1


def slug(task_id: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "__", task_id)


def start_cluster() -> EmbeddedCluster:
    """An embedded cluster whose simulated kubelet runs every topology's images."""
    with tempfile.TemporaryDirectory() as folder:  # copied into the cluster's directory
        models = images.write(Path(folder) / "images.yaml")
        return EmbeddedCluster(nodes=NODES, timing=TIMING, images=models).start()


def run(
    task_ids: list[str],
    agents: list[AgentSpec],
    out: Path,
    settings: trial.Settings,
    cluster: Cluster | None = None,
    on_done: Callable[[TrialResult], None] | None = None,
) -> list[TrialResult]:
    """Every agent on every task, task by task, on `cluster` (else one started and stopped
    here); results in task order, agents in the order given."""
    generated = [tasks.generate(t) for t in task_ids]  # a bad id fails before any cluster
    own = cluster is None
    cluster = cluster or start_cluster()
    records = []
    try:
        for task in generated:
            for agent in agents:
                paths = RunPaths(out).trial(slug(task.id), agent.label, 1)
                record = trial.run(cluster, task, agent, paths, settings)
                records.append(record)
                if on_done is not None:
                    on_done(record)
    finally:
        if own:
            cluster.stop()
    return records


def meta(task_ids: list[str], agents: list[str], out: Path, cluster: str) -> dict:
    """run.json's fields besides the trials and the summary."""
    return {
        "started_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "agents": agents,
        "tasks": task_ids,
        "repeats": 1,
        "jobs": 1,
        "cluster": cluster,
        "timing": TIMING if cluster == "embedded" else None,
        "dir": str(out),
    }
