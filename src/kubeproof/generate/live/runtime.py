"""Runtime truth on the live cluster: a PodsReady, ServiceEndpoints or PolicyPaths check read
from what the controllers, the scheduler and the simulated nodes wrote, polled until its
verdict is settled or its timeout passes (verdicts in generate/runtime.py). It needs a node
to run pods on: on a cluster without one it is the judge's failure, never the answer's."""

import time

from lightkube import Client
from lightkube.resources.core_v1 import Node, Pod
from lightkube.resources.discovery_v1 import EndpointSlice

from kubeproof.generate import runtime
from kubeproof.generate.checks import Verdict
from kubeproof.generate.live import objects
from kubeproof.generate.model import PodsReady, PolicyPaths, ServiceEndpoints
from kubeproof.generate.runtime import Progress
from kubeproof.netsim import live as netsim_live

POLL = 0.25  # seconds between reads
# how long a settling verdict must stay as it is before it is final: the EndpointSlice
# controller writes a Service's slices within a sync of the pods it selects turning Ready
# (pkg/controller/endpointslice, no batching by default), well under this
SETTLE = 4.0

RuntimeCheck = PodsReady | ServiceEndpoints | PolicyPaths


class NoNodes(RuntimeError):
    """Runtime truth asked of a cluster that has no node to run pods on."""


def has_nodes(admin: Client) -> bool:
    return any(True for _ in admin.list(Node))


def _pods(admin: Client, namespace: str | None) -> list[dict]:
    return [p.to_dict() for p in admin.list(Pod, namespace=namespace or "default")]


def _read_pods(admin: Client, check: PodsReady) -> tuple[Verdict, Progress]:
    workload = objects.read(admin, check.target)
    return runtime.pods_verdict(check, workload, _pods(admin, check.target.namespace))


def _backing_ready(admin: Client, check: ServiceEndpoints, pods: list[dict]) -> bool:
    if check.backing is None:
        return True
    workload = objects.read(admin, check.backing)
    if workload is None:
        return True  # nothing to wait for
    want = (workload.get("spec") or {}).get("replicas", 1)
    selector = ((workload.get("spec") or {}).get("selector") or {}).get("matchLabels") or {}
    return sum(runtime.selects(selector, p) and runtime.ready(p) for p in pods) >= want


def _read_endpoints(admin: Client, check: ServiceEndpoints) -> tuple[Verdict, Progress]:
    service = objects.read(admin, check.target)
    ns = check.target.namespace or objects.DEFAULT_NAMESPACE
    label: dict = {"kubernetes.io/service-name": check.target.name}
    slices = [s.to_dict() for s in admin.list(EndpointSlice, namespace=ns, labels=label)]
    pods = _pods(admin, ns)
    backed = _backing_ready(admin, check, pods)
    return runtime.endpoints_verdict(check, service, slices, pods, backed)


def _read_paths(admin: Client, check: PolicyPaths) -> tuple[Verdict, Progress]:
    return runtime.paths_verdict(check, netsim_live.read(admin))


def evaluate(admin: Client, check: RuntimeCheck) -> Verdict:
    """Poll the check until its verdict is final, has been settling for SETTLE seconds, or
    its timeout passes (then the last verdict, marked with the wait)."""
    if not has_nodes(admin):
        raise NoNodes(f"{check.type} needs a node to run pods on; the cluster has none")
    read = {PodsReady: _read_pods, ServiceEndpoints: _read_endpoints, PolicyPaths: _read_paths}[
        type(check)
    ]
    start = time.monotonic()
    deadline = start + check.timeout_seconds
    settling_since: float | None = None
    while True:
        verdict, progress = read(admin, check)  # type: ignore[operator]
        now = time.monotonic()
        if progress is Progress.done:
            return verdict
        settling_since = (settling_since or now) if progress is Progress.settling else None
        if settling_since is not None and now - settling_since >= SETTLE:
            return verdict
        if now >= deadline:
            verdict.reason = f"after {check.timeout_seconds:.0f} s: {verdict.reason}"
            return verdict
        time.sleep(POLL)
