"""The kubelet's node-pressure eviction manager (k8s.io/kubernetes v1.36.3
pkg/kubelet/eviction/, EV below): one `synchronize` every evictionMonitoringPeriod observes
the signals, reports which pressure conditions the met thresholds imply, records
`EvictionThresholdMet` on the Node and picks at most one pod to evict, with the status
message the kubelet writes.

Pure: the caller hands in the node's capacity and, for each active pod, the working set of
its running containers (the behaviour models' `memory`, as `kubectl top` shows it); the
pressure hysteresis stays in nodestatus.StatusReporter. Only memory is observed — the models
give no disk or inode usage, so the nodefs/imagefs thresholds are declared and never met."""

import functools
from dataclasses import dataclass
from decimal import Decimal

from kubeproof.nodesim.admission import SYSTEM_CRITICAL_PRIORITY, pod_requests
from kubeproof.nodesim.kubeevent import Event
from kubeproof.nodesim.nodestatus import canonical
from kubeproof.nodesim.quantity import parse

# EV/defaults_linux.go:22-28 DefaultEvictionHard. All are hard thresholds: no grace period,
# minimum reclaim 0 (pkg/kubelet/eviction/api/types.go), so "met" is simply available < it.
MEMORY_AVAILABLE = "memory.available"
DEFAULT_EVICTION_HARD = {
    MEMORY_AVAILABLE: "100Mi",
    "nodefs.available": "10%",
    "nodefs.inodesFree": "5%",
    "imagefs.available": "15%",
    "imagefs.inodesFree": "5%",
}
# EV/helpers.go:86-108 signalToNodeCondition and signalToResource
_CONDITION = {
    MEMORY_AVAILABLE: "MemoryPressure",
    "nodefs.available": "DiskPressure",
    "nodefs.inodesFree": "DiskPressure",
    "imagefs.available": "DiskPressure",
    "imagefs.inodesFree": "DiskPressure",
}
_RESOURCE = {MEMORY_AVAILABLE: "memory"}
# EV/eviction_manager.go:60-62: a hard threshold evicts with a 1 s grace period; the runtime
# raises it to minimumGracePeriodInSeconds (kuberuntime_container.go:886-887,905-906;
# termination.py)
IMMEDIATE_EVICTION_GRACE = 1.0
# EV/helpers.go:44-76
REASON = "Evicted"
_NODE_LOW = "The node was low on resource: {}. "
_THRESHOLD_MET = "Threshold quantity: {}, available: {}. "
_CONTAINER = "Container {} was using {}, request is {}, has larger consumption of {}. "


@dataclass(frozen=True)
class PodUsage:
    """An active pod (admitted, not finished) and the working set of each running container
    (none: the pod has no running container; its stats are then zero)."""

    pod: dict
    containers: tuple[tuple[str, int], ...] = ()

    @property
    def memory(self) -> int:
        return sum(used for _, used in self.containers)


@dataclass(frozen=True)
class Eviction:
    pod: dict
    message: str  # status.message and the `Evicted` event's message
    grace: float  # gracePeriodOverride, seconds
    # the DisruptionTarget condition: set for node pressure (:431-437), not for a local
    # storage limit (:546,573,600 pass a nil condition)
    disruption: bool = True


@dataclass(frozen=True)
class Decision:
    pressure: tuple[str, ...]  # node conditions of the thresholds met now
    events: tuple[Event, ...]  # recorded on the Node
    victim: Eviction | None
    local: tuple[Eviction, ...] = ()  # pods over a local storage limit (localstorage.py)

    @property
    def evictions(self) -> tuple[Eviction, ...]:
        return self.local or ((self.victim,) if self.victim else ())


def memory_available(capacity: dict[str, str], working_set: int) -> int:
    """The summary's node memory: available = limit - working set (pkg/kubelet/stats/
    helper.go:75-78; EV/helpers_others.go:27-37 reads it). A real working set never passes
    the machine's memory; a modelled one may, so it stops at zero."""
    return max(int(parse(capacity.get("memory", "0"))) - working_set, 0)


def quantity(value: int) -> str:
    """resource.NewQuantity(v, BinarySI).String()."""
    return canonical(Decimal(value), binary=True)


def request_string(text: str | None) -> str:
    """A request as its parsed Quantity prints (the zero Quantity prints `0`)."""
    if not text:
        return "0"
    return canonical(parse(text), binary=text.endswith("i"))


def _cmp_bool(a: bool, b: bool) -> int:
    """EV/helpers.go:806-814: true sorts first."""
    if a == b:
        return 0
    return -1 if a else 1


def _request(pod: dict) -> int:
    """pkg/api/v1/resource GetResourceRequestQuantity(pod, memory)."""
    return pod_requests(pod["spec"]).get("memory", 0)


def _priority(pod: dict) -> int:
    return pod["spec"].get("priority") or 0


def rank_memory_pressure(pods: list[PodUsage]) -> list[PodUsage]:
    """EV/helpers.go:816-821 rankMemoryPressure: usage above requests first (:693-709), then
    lower priority (:680-690), then larger usage minus requests (:712-733). Go's sort.Sort
    is an insertion sort for the handful of pods a node has, so ties keep their order."""

    def compare(p1: PodUsage, p2: PodUsage) -> int:
        over1, over2 = p1.memory > _request(p1.pod), p2.memory > _request(p2.pod)
        if result := _cmp_bool(over1, over2):
            return result
        prio1, prio2 = _priority(p1.pod), _priority(p2.pod)
        if prio1 != prio2:
            return 1 if prio1 > prio2 else -1
        left1, left2 = p1.memory - _request(p1.pod), p2.memory - _request(p2.pod)
        return (left2 > left1) - (left2 < left1)

    return sorted(pods, key=functools.cmp_to_key(compare))


def eviction_message(usage: PodUsage, threshold: str, available: int) -> str:
    """EV/helpers.go:1240-1303 evictionMessage for memory: the starved resource, the
    threshold and what was available, then each container using more than it requests."""
    message = _NODE_LOW.format("memory") + _THRESHOLD_MET.format(threshold, quantity(available))
    spec = usage.pod["spec"]
    containers = [*(spec.get("containers") or []), *(spec.get("initContainers") or [])]
    for name, used in usage.containers:
        for container in containers:
            if container["name"] != name:
                continue
            asked = ((container.get("resources") or {}).get("requests") or {}).get("memory")
            if used > (int(parse(asked)) if asked else 0):
                message += _CONTAINER.format(name, quantity(used), request_string(asked), "memory")
            break
    return message


def critical(pod: dict) -> bool:
    """pkg/kubelet/types/pod_update.go IsCriticalPod: evictPod refuses these
    (EV/eviction_manager.go:612-618)."""
    notes = pod["metadata"].get("annotations") or {}
    if notes.get("kubernetes.io/config.source", "api") != "api":
        return True  # a static pod
    if "kubernetes.io/config.mirror" in notes:
        return True
    return _priority(pod) >= SYSTEM_CRITICAL_PRIORITY


def synchronize(
    capacity: dict[str, str],
    working_set: int,
    pods: list[PodUsage],
    local: tuple[Eviction, ...] = (),
) -> Decision:
    """EV/eviction_manager.go:248-444 for the memory.available signal. `working_set`: the
    node's whole working set (its pods' and the system's). `local`: the pods over a local
    storage limit (localstorage.py); when there are any they are evicted, all of them, and
    the synchronize ends there, the pressure conditions already noted (:361-367)."""
    if "memory" not in capacity:
        return Decision((), (), None, local)
    available = memory_available(capacity, working_set)
    threshold = DEFAULT_EVICTION_HARD[MEMORY_AVAILABLE]
    # EV/helpers.go:943-970 thresholdsMet: met when the threshold quantity exceeds what is available
    if not parse(threshold) > available:
        return Decision((), (), None, local)
    if local:
        return Decision((_CONDITION[MEMORY_AVAILABLE],), (), None, local)
    resource = _RESOURCE[MEMORY_AVAILABLE]
    # :384 the event of every synchronize that finds a threshold to reclaim; memory has no
    # node-level reclaim (helpers.go buildSignalToNodeReclaimFuncs), so pods go
    events = (Event("Warning", "EvictionThresholdMet", f"Attempting to reclaim {resource}"),)
    victim = None
    for usage in rank_memory_pressure(pods):  # :415-441, at most one pod per synchronize
        if critical(usage.pod):
            continue
        message = eviction_message(usage, request_string(threshold), available)
        victim = Eviction(usage.pod, message, IMMEDIATE_EVICTION_GRACE)
        break
    return Decision((_CONDITION[MEMORY_AVAILABLE],), events, victim)


def disruption_condition(message: str) -> dict:
    """EV/eviction_manager.go:431-437: the DisruptionTarget condition evictPod sets."""
    return {
        "type": "DisruptionTarget",
        "status": "True",
        "reason": "TerminationByKubelet",
        "message": message,
    }
