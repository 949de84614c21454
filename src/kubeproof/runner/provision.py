"""Where a trial's cluster comes from.

Embedded: a fresh cluster per trial, shaped by the task (its node profile and behaviour
models), started in the background while the previous trial runs. External: the one
cluster a kubeconfig names, shared by trials one at a time and cleaned between them.
"""

from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Protocol

from kubeproof.cluster.base import Cluster
from kubeproof.cluster.decoders import prepare_for_threads
from kubeproof.cluster.embedded import EmbeddedCluster
from kubeproof.cluster.external import ExternalCluster
from kubeproof.errors import KubeproofError
from kubeproof.nodesim.profile import load as load_profile
from kubeproof.runner.access import AGENT, AGENT_NAMESPACE
from kubeproof.tasks import Task


class ClusterSource(Protocol):
    kind: str  # embedded | external
    max_parallel: int

    def prepare(self, task: Task) -> "Future[Cluster]":
        """Begin getting a cluster for this task; the future yields it started."""

    def release(self, cluster: Cluster, task: Task, namespaces: list[str]) -> None: ...

    def close(self) -> None: ...


def nodes_for(task: Task):
    nodes = task.spec.kubeproof.nodes
    if nodes.profile:
        return load_profile(task.root / "environment" / nodes.profile)
    return nodes.count


class EmbeddedSource:
    kind = "embedded"
    max_parallel = 64

    def __init__(self, starters: int = 2, timing: str = "real"):
        prepare_for_threads()
        self.timing = timing
        self._pool = ThreadPoolExecutor(starters, thread_name_prefix="cluster-start")

    def prepare(self, task: Task) -> "Future[Cluster]":
        nodes, images = nodes_for(task), task.images
        timing = self.timing
        return self._pool.submit(
            lambda: EmbeddedCluster(nodes=nodes, images=images, timing=timing).start()
        )

    def release(self, cluster: Cluster, task: Task, namespaces: list[str]) -> None:
        cluster.stop()

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


class ExternalSource:
    """Trials on a cluster kubeproof did not start: one at a time, each leaving no trace."""

    kind = "external"
    max_parallel = 1

    def __init__(self, kubeconfig: Path, context: str | None = None):
        self.cluster = ExternalCluster(kubeconfig, context).start()

    def prepare(self, task: Task) -> "Future[Cluster]":
        if "external" not in task.spec.kubeproof.backends:
            raise KubeproofError(
                f"{task.id} runs only on {', '.join(task.spec.kubeproof.backends)} clusters"
            )
        future: Future[Cluster] = Future()
        future.set_result(self.cluster)
        return future

    def release(self, cluster: Cluster, task: Task, namespaces: list[str]) -> None:
        for ns in [*namespaces, AGENT_NAMESPACE]:
            cluster.kubectl("delete", "namespace", ns, "--ignore-not-found", check=False)
        for kind in ("clusterrolebinding", "clusterrole"):
            cluster.kubectl("delete", kind, AGENT, "--ignore-not-found", check=False)

    def close(self) -> None:
        pass


def source_for(spec: str, timing: str = "real") -> ClusterSource:
    """`embedded` or `kubeconfig:PATH[#CONTEXT]`; `timing` is the embedded clusters'
    simulated-kubelet profile (nodesim/timing.py)."""
    if spec == "embedded":
        return EmbeddedSource(timing=timing)
    if spec.startswith("kubeconfig:"):
        path, _, context = spec.removeprefix("kubeconfig:").partition("#")
        return ExternalSource(Path(path), context or None)
    raise KubeproofError(
        f"unknown cluster {spec!r}", hint="use `embedded` or `kubeconfig:PATH[#CONTEXT]`"
    )
