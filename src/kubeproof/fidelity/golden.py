"""The simulated kubelet's pod state machine on a fake clock: a pod spec in, the events it
records and the statuses it writes out, with their times."""

from dataclasses import dataclass, field

from kubeproof.nodesim import admission, eviction, localstorage, metrics, nodestatus
from kubeproof.nodesim import catalog as catalog_mod
from kubeproof.nodesim.pod import PodRuntime
from kubeproof.nodesim.process import FOREVER
from kubeproof.nodesim.profile import DEFAULT_CAPACITY
from kubeproof.nodesim.timing import (
    EVICTION_MONITORING_PERIOD,
    REAL,
    VOLUME_STATS_AGG_PERIOD,
    Timing,
)

START = 1_000_000.0  # the fake clock's epoch: the pod is bound at START


class StaticWorld:
    """The objects a pod may read (Secrets, ConfigMaps, Services, Nodes), fixed for the
    scenario: the node simulator's `config.World`."""

    def __init__(self, objects: list[dict] | None = None):
        self.objects = {
            (o["kind"], o["metadata"].get("namespace", "default"), o["metadata"]["name"]): o
            for o in objects or []
        }
        self.updated_at: dict[tuple[str, str, str], float] = {}

    def update(self, obj: dict, at: float) -> None:
        """The object replaced at `at` (the watch event the simulator's cache would see)."""
        key = (obj["kind"], obj["metadata"].get("namespace", "default"), obj["metadata"]["name"])
        self.objects[key], self.updated_at[key] = obj, at

    def secret(self, namespace: str, name: str) -> dict | None:
        return self.objects.get(("Secret", namespace, name))

    def configmap(self, namespace: str, name: str) -> dict | None:
        return self.objects.get(("ConfigMap", namespace, name))

    def services(self) -> list[dict]:
        return [o for (kind, _, _), o in self.objects.items() if kind == "Service"]

    def node(self, name: str) -> dict | None:
        return self.objects.get(("Node", "default", name))

    def changed_at(self, kind: str, namespace: str, name: str) -> float:
        return self.updated_at.get((kind, namespace, name), 0.0)  # 0: as created


def golden_node(capacity: dict[str, str] | None = None, **spec) -> dict:
    """node-1 as its kubelet registers it: the profile's default capacity, allocatable
    less the hard eviction thresholds (nodestatus.allocatable)."""
    capacity = {**DEFAULT_CAPACITY, **(capacity or {})}
    return {
        "metadata": {"name": "node-1", "labels": {"kubernetes.io/hostname": "node-1"}},
        "spec": spec,
        "status": {"capacity": capacity, "allocatable": nodestatus.allocatable(capacity)},
    }


@dataclass
class Trace:
    events: list[tuple[float, str, str, str]] = field(default_factory=list)  # t, type, reason, msg
    field_paths: list[str | None] = field(default_factory=list)  # each event's container
    statuses: list[tuple[float, dict]] = field(default_factory=list)  # t, status when it changed
    gone_at: float | None = None  # a deleted pod: when the kubelet removed it
    node_events: list[tuple[float, str, str, str]] = field(default_factory=list)  # on the Node
    logs: dict[str, list[tuple[float, str]]] = field(default_factory=dict)  # container's run
    wakes: int = 0  # times the pod worker ran: a due time left in the past spins it

    def record(self, now: float, event) -> None:
        self.events.append((round(now - START, 3), event.type, event.reason, event.message))
        self.field_paths.append(event.field_path)

    def status_at(self, t: float) -> dict:
        """The last status written at or before `t` seconds."""
        current: dict = {}
        for at, status in self.statuses:
            if at > t:
                break
            current = status
        return current

    def event_lines(self) -> list[str]:
        return [f"{t:g} {kind} {reason}: {message}" for t, kind, reason, message in self.events]


def pod_object(spec: dict, name: str = "p", namespace: str = "default") -> dict:
    """A bound pod as the apiserver would hand it to the kubelet (defaults applied)."""
    spec = {"restartPolicy": "Always", "terminationGracePeriodSeconds": 30, **spec}
    for c in [*spec.get("initContainers", []), *spec["containers"]]:
        c.setdefault("imagePullPolicy", "IfNotPresent")
    return {
        "metadata": {
            "name": name,
            "namespace": namespace,
            "uid": "00000000-0000-4000-8000-000000000001",
            "generation": 1,
        },
        "spec": {"nodeName": "node-1", **spec},
        "status": {"phase": "Pending", "hostIP": "10.0.0.1", "qosClass": "BestEffort"},
    }


def simulate(
    pod: dict,
    until: float,
    *,
    world: StaticWorld | None = None,
    catalog: catalog_mod.Catalog | None = None,
    timing: Timing = REAL,
    images: set[str] | None = None,
    delete_at: float | None = None,
    grace: int | None = None,
    node: dict | None = None,
    others: list[dict] | None = None,
    pressure: tuple[str, ...] = (),
    evict: bool = False,
    updates: list[tuple[float, dict]] = (),
    debug: list[tuple[float, dict]] = (),
) -> Trace:
    """Drive the pod as the kubelet's pod worker does — advance at each due time — for
    `until` seconds, recording every event and every status change. `delete_at`: the pod
    is deleted then (with `grace`, default its terminationGracePeriodSeconds); the trace
    ends when the kubelet would remove it (`Trace.gone_at`). The pod is first admitted
    (nodesim/admission.py) on `node` (default golden_node()) beside the `others` pods
    already running there, under the node's `pressure` conditions. `evict`: the node's
    eviction manager synchronizes every evictionMonitoringPeriod against the node's
    capacity and the pod's modelled working set (nodesim/eviction.py)."""
    world = world or StaticWorld()
    catalog = catalog or catalog_mod.shipped()
    runtime = PodRuntime(pod, "10.244.1.2", set() if images is None else images, timing)
    rejection = admission.admit(pod, node or golden_node(), others or [], pressure)
    if rejection:
        runtime.reject(rejection)
    trace = Trace()
    now, current = START, pod.get("status") or {}
    deleting = None if delete_at is None else START + delete_at
    syncing = START if evict else None  # the eviction manager's next synchronize
    capacity = (node or golden_node())["status"]["capacity"]
    pending = sorted(((START + at, obj) for at, obj in updates), key=lambda u: u[0])
    # `debug`: ephemeral containers the pods/ephemeralcontainers subresource adds to the spec
    pending += [(START + at, {"ephemeral": c}) for at, c in debug]
    pending.sort(key=lambda u: u[0])
    while now <= START + until:
        while pending and pending[0][0] <= now:
            if "ephemeral" in pending[0][1]:
                added = pod["spec"].setdefault("ephemeralContainers", [])
                added.append(dict(pending[0][1]["ephemeral"]))
            else:
                world.update(pending[0][1], pending[0][0])
            pending.pop(0)
        if deleting is not None and now >= deleting and not runtime.stopping:
            meta = pod["metadata"]
            meta["deletionTimestamp"] = "deleted"
            meta["deletionGracePeriodSeconds"] = (
                grace if grace is not None else pod["spec"]["terminationGracePeriodSeconds"]
            )
            now = deleting
            for event in runtime.kill(now, catalog):
                trace.record(now, event)
        if syncing is not None and now >= syncing:
            syncing = now + timing(EVICTION_MONITORING_PERIOD)
            decision = _synchronize(runtime, capacity, catalog, now, timing)
            for e in decision.events:
                trace.node_events.append((round(now - START, 3), e.type, e.reason, e.message))
            for v in decision.evictions:
                for event in runtime.evict(now, catalog, v.message, v.grace, v.disruption):
                    trace.record(now, event)
        trace.wakes += 1
        for event in runtime.advance(now, world, catalog):
            trace.record(now, event)
        status = runtime.status(now, current)
        if status != current:
            trace.statuses.append((round(now - START, 3), status))
            current = status
        if runtime.stopping and deleting is not None and runtime.stopped():
            trace.gone_at = round(now - START, 3)
            break
        due = runtime.next_at()
        if pending:
            due = min(due, pending[0][0])
        if deleting is not None and not runtime.stopping:
            due = min(due, deleting)
        if syncing is not None and not (runtime.terminal and runtime.stopped()):
            due = min(due, syncing)
        if due == FOREVER:
            break
        now = max(due, now + 1e-3)
    trace.logs = {c.name: [(round(t - START, 3), line) for t, line in c.logs] for c in runtime.app}
    return trace


def _synchronize(runtime: PodRuntime, capacity: dict[str, str], catalog, now, timing):
    """One synchronize on a node whose only pod is `runtime` and whose kubelet started at
    START (the kubelet's hook: nodesim/kubelet.py `_synchronize`)."""
    usage = eviction.PodUsage(
        runtime.obj,
        tuple((c, int(m)) for c, _, m in metrics.pod_usage(runtime, catalog, now) or []),
    )
    working_set = int(metrics.SYSTEM_MEMORY) + usage.memory
    active = [] if runtime.rejected or runtime.terminal else [usage]
    period = timing(VOLUME_STATS_AGG_PERIOD)
    over = localstorage.evictions([runtime] if active else [], now, START, period)
    return eviction.synchronize(capacity, working_set, active, over)
