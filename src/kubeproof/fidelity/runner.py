"""Running scenarios: golden (the node simulator on a fake clock, no cluster) or live (any
cluster through stock kubectl, `live.py`)."""

import copy
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from kubeproof.fidelity.golden import StaticWorld, golden_node, pod_object, simulate
from kubeproof.fidelity.judge import Observed, Result, fold, judge
from kubeproof.fidelity.scenario import Scenario
from kubeproof.nodesim import images
from kubeproof.nodesim.catalog import canonical
from kubeproof.nodesim.timing import REAL, Timing

GOLDEN_NAMESPACE = "default"
GOLDEN_IP = "10.244.1.2"


def golden_pod(s: Scenario) -> dict:
    """The scenario's pod as the apiserver would hand it to the kubelet."""
    spec = copy.deepcopy(s.pod["spec"])
    for c in [*spec.get("initContainers", []), *spec["containers"]]:
        # SetDefaults_Container: Always for :latest or no tag, else IfNotPresent
        c.setdefault("imagePullPolicy", images.default_pull_policy(c["image"]))
    pod = pod_object(spec, name=s.pod_name, namespace=GOLDEN_NAMESPACE)
    meta = s.pod.get("metadata") or {}
    for key in ("labels", "annotations"):
        if key in meta:
            pod["metadata"][key] = copy.deepcopy(meta[key])
    return pod


def _defaulted(container: dict) -> dict:
    """An ephemeral container as the apiserver stores it (SetDefaults_EphemeralContainer
    pulls as a container does)."""
    out = copy.deepcopy(container)
    out.setdefault("imagePullPolicy", images.default_pull_policy(out["image"]))
    out.setdefault("terminationMessagePolicy", "File")
    return out


def _local_limits(pod: dict) -> bool:
    """A pod with a local storage limit: its node's eviction manager watches it (every
    node runs one; golden runs it only where a scenario can be affected)."""
    spec = pod["spec"]
    containers = [*spec.get("initContainers", []), *spec["containers"]]
    limits = [(c.get("resources") or {}).get("limits") or {} for c in containers]
    sized = [(v.get("emptyDir") or {}).get("sizeLimit") for v in spec.get("volumes") or []]
    return any("ephemeral-storage" in x for x in limits) or any(sized)


def observe_golden(s: Scenario, timing: Timing = REAL) -> Observed:
    pod = golden_pod(s)
    objects = [
        {**o, "metadata": {**o["metadata"], "namespace": GOLDEN_NAMESPACE}} for o in s.objects
    ]
    trace = simulate(
        pod,
        timing(s.until),
        world=StaticWorld(objects),
        timing=timing,
        images={canonical(i) for i in s.node_images},
        delete_at=None if s.delete_at is None else timing(s.delete_at),
        grace=s.grace,
        node=golden_node(s.node_capacity) if s.node_capacity else None,
        evict=bool(s.node_capacity) or _local_limits(pod),
        updates=[
            (
                timing(u.at),
                {**u.object, "metadata": {**u.object["metadata"], "namespace": GOLDEN_NAMESPACE}},
            )
            for u in s.updates
        ],
        debug=[(timing(d.at), _defaulted(d.container)) for d in s.debug],
    )
    events = fold(
        [(t, kind, reason, message, path)
         for (t, kind, reason, message), path in zip(trace.events, trace.field_paths, strict=True)]
    )  # fmt: skip
    return Observed(
        events=events,
        statuses=trace.statuses,
        gone_at=trace.gone_at,
        logs={name: [line for _, line in lines] for name, lines in trace.logs.items()},
        values={
            "pod": s.pod_name,
            "namespace": GOLDEN_NAMESPACE,
            "uid": pod["metadata"]["uid"],
            "podIP": GOLDEN_IP,
        },
    )


def run_golden(s: Scenario, timing: Timing = REAL) -> Result:
    if not s.golden:
        return Result(s.name, s.source, "golden", skipped="live only (golden: false)")
    try:
        observed = observe_golden(s, timing)
    except Exception as exc:  # a simulator crash is a finding, not the suite's end
        return Result(s.name, s.source, "golden", error=f"{type(exc).__name__}: {exc}")
    return judge(s, observed, live=False, timing=timing)


def run_all(
    scenarios: list[Scenario],
    one: Callable[[Scenario], Result],
    parallel: int = 1,
    progress: Callable[[Result], None] | None = None,
) -> list[Result]:
    """Each scenario through `one`, `parallel` at a time, results in the scenarios' order."""

    def step(s: Scenario) -> Result:
        result = one(s)
        if progress:
            progress(result)
        return result

    if parallel <= 1:
        return [step(s) for s in scenarios]
    with ThreadPoolExecutor(max_workers=parallel) as pool:
        return list(pool.map(step, scenarios))
