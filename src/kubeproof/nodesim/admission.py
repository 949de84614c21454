"""The kubelet's pod admission (v1.36.3): a pod bound to the node (by the scheduler or
straight through spec.nodeName) is checked against the pods already admitted there before
any container starts; a rejected pod goes Failed with the handler's reason and never runs.

Handlers in the kubelet's order (pkg/kubelet/kubelet.go:1078-1118): the eviction manager
(pkg/kubelet/eviction/eviction_manager.go:145-185), then the predicates
(pkg/kubelet/lifecycle/predicate.go:123-255, GeneralPredicates = scheduler.AdmissionCheck,
pkg/scheduler/eventhandlers.go:735-770, and the NoExecute taint check, predicate.go:444-454).
Pure functions of the pod, the node object and the other admitted pods."""

import math
from typing import NamedTuple

from kubeproof.kube.scheduling import requirement_matches, tolerates
from kubeproof.nodesim.quantity import parse

# pkg/kubelet/lifecycle/predicate.go:85-88 (reasons), :409-411 (message)
_OUT_OF = {
    "cpu": "OutOfcpu",
    "memory": "OutOfmemory",
    "ephemeral-storage": "OutOfephemeral-storage",
}
# pkg/scheduler/framework/plugins/names/names.go and each plugin's ErrReason
NODE_AFFINITY = ("NodeAffinity", "node(s) didn't match Pod's node affinity/selector")
NODE_PORTS = ("NodePorts", "node(s) didn't have free ports for the requested pod ports")
TAINTS = ("TaintToleration", "node(s) had taints that the pod didn't tolerate")
# pkg/kubelet/eviction/eviction_manager.go:46-47 (Reason), helpers.go:47 (nodeConditionMessageFmt)
EVICTED = "Evicted"
# pkg/scheduling/types.go SystemCriticalPriority: kubelettypes.IsCriticalPod
SYSTEM_CRITICAL_PRIORITY = 2_000_000_000
_BASIC = ("cpu", "memory", "ephemeral-storage")


class Rejection(NamedTuple):
    reason: str
    message: str  # the event's text; status.message is "Pod was rejected: " + this

    @property
    def status_message(self) -> str:
        return "Pod was rejected: " + self.message  # pkg/kubelet/kubelet.go:2589-2596


def _amount(resource: str, value) -> int:
    """The integer the scheduler compares: milli-CPU (MilliValue), else Value(); both round
    up (k8s.io/apimachinery resource.Quantity)."""
    number = parse(value)
    return math.ceil(number * 1000) if resource == "cpu" else math.ceil(number)


def _requests(container: dict) -> dict[str, int]:
    asked = (container.get("resources") or {}).get("requests") or {}
    return {k: _amount(k, v) for k, v in asked.items()}


def _add(into: dict[str, int], more: dict[str, int]) -> None:
    for k, v in more.items():
        into[k] = into.get(k, 0) + v


def pod_requests(spec: dict) -> dict[str, int]:
    """k8s.io/component-helpers/resource/helpers.go PodRequests: the regular containers'
    sum, sidecars added, each init container's request (with the sidecars started before
    it) a floor, plus the pod overhead; pod-level requests replace cpu/memory."""
    total: dict[str, int] = {}
    for c in spec.get("containers") or []:
        _add(total, _requests(c))
    sidecars: dict[str, int] = {}
    init_max: dict[str, int] = {}
    for c in spec.get("initContainers") or []:
        asked = _requests(c)
        if c.get("restartPolicy") == "Always":
            _add(total, asked)
            _add(sidecars, asked)
            asked = dict(sidecars)
        else:
            _add(asked, sidecars)
        for k, v in asked.items():
            init_max[k] = max(init_max.get(k, 0), v)
    for k, v in init_max.items():
        total[k] = max(total.get(k, 0), v)
    pod_level = (spec.get("resources") or {}).get("requests") or {}
    for k in ("cpu", "memory"):
        if k in pod_level:
            total[k] = _amount(k, pod_level[k])
    _add(total, {k: _amount(k, v) for k, v in (spec.get("overhead") or {}).items()})
    return total


def _fits(spec: dict, allocatable: dict[str, str], others: list[dict]) -> list[Rejection]:
    """pkg/scheduler/framework/plugins/noderesources/fit.go:678-770 fitsRequest, in its
    order: pods, cpu, memory, ephemeral-storage, then extended resources."""
    out = []
    allowed = int(parse(allocatable.get("pods", "0")))
    if len(others) + 1 > allowed:
        out.append(_insufficient("pods", 1, len(others), allowed))
    want = pod_requests(spec)
    used: dict[str, int] = {}
    for other in others:
        _add(used, pod_requests(other))
    names = [*_BASIC, *sorted(k for k in want if k not in _BASIC and "/" in k)]
    for name in names:
        asked = want.get(name, 0)
        have = _amount(name, allocatable[name]) if name in allocatable else 0
        if name not in _BASIC and name not in allocatable:
            continue  # predicate.go:187: extended resources the node lacks are dropped
        if asked > 0 and asked > have - used.get(name, 0):
            out.append(_insufficient(name, asked, used.get(name, 0), have))
    return out


def _insufficient(name: str, requested: int, used: int, capacity: int) -> Rejection:
    # predicate.go:234-246 (reason), :409-411 InsufficientResourceError.Error
    reason = "OutOfpods" if name == "pods" else _OUT_OF.get(name, f"OutOf{name}")
    message = (
        f"Node didn't have enough resource: {name}, requested: {requested}, used: {used}, "
        f"capacity: {capacity}"
    )
    return Rejection(reason, message)


def _predicate(name_reason: tuple[str, str]) -> Rejection:
    # predicate.go:226-229,425-427 PredicateFailureError: reason is the plugin's name
    name, desc = name_reason
    return Rejection(name, f"Predicate {name} failed: {desc}")


def affinity_matches(spec: dict, node: dict) -> bool:
    """GetRequiredNodeAffinity(pod).Match(node): nodeSelector and the required node
    affinity terms (ORed; a term's requirements ANDed; an empty term matches nothing)."""
    meta = node.get("metadata") or {}
    labels = meta.get("labels") or {}
    if any(labels.get(k) != v for k, v in (spec.get("nodeSelector") or {}).items()):
        return False
    required = ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution"
    )
    if required is None:
        return True
    fields = {"metadata.name": meta.get("name")}
    for term in required.get("nodeSelectorTerms") or []:
        exprs, by_field = term.get("matchExpressions") or [], term.get("matchFields") or []
        if not (exprs or by_field):
            continue
        if all(requirement_matches(e, labels.get(e.get("key"))) for e in exprs) and all(
            requirement_matches(e, fields.get(e.get("key"))) for e in by_field
        ):
            return True
    return False


def _ports_free(spec: dict, others: list[dict]) -> bool:
    """nodeports.Fits: no hostPort (protocol, port) already taken on the node."""

    def taken(s: dict) -> set[tuple[str, int]]:
        return {
            (p.get("protocol", "TCP"), p["hostPort"])
            for c in [*(s.get("initContainers") or []), *(s.get("containers") or [])]
            for p in c.get("ports") or []
            if p.get("hostPort")
        }

    mine = taken(spec)
    return not mine or not any(mine & taken(o) for o in others)


def qos_class(pod: dict) -> str:
    """pkg/apis/core/v1/helper/qos/qos.go GetPodQOS, computed from the spec as the
    apiserver computes status.qosClass at creation (in-place resize keeps it)."""
    spec = pod["spec"]
    containers = [*(spec.get("initContainers") or []), *(spec.get("containers") or [])]
    guaranteed, any_set = True, False
    for c in containers:
        res = c.get("resources") or {}
        req, lim = res.get("requests") or {}, res.get("limits") or {}
        for k in ("cpu", "memory"):
            r, limit = req.get(k), lim.get(k)
            any_set = any_set or bool(r and parse(r)) or bool(limit and parse(limit))
            if limit is None or (r is not None and parse(r) != parse(limit)):
                guaranteed = False
    if not any_set:
        return "BestEffort"
    return "Guaranteed" if guaranteed else "Burstable"


def _critical(pod: dict) -> bool:
    """pkg/kubelet/types/pod_update.go IsCriticalPod: static/mirror pods, or priority at
    least system-critical."""
    notes = pod["metadata"].get("annotations") or {}
    if "kubernetes.io/config.mirror" in notes:
        return True
    return (pod["spec"].get("priority") or 0) >= SYSTEM_CRITICAL_PRIORITY


def eviction_admit(pod: dict, pressure: tuple[str, ...]) -> Rejection | None:
    """pkg/kubelet/eviction/eviction_manager.go:146-185: under memory pressure alone only
    BestEffort pods not tolerating the memory-pressure taint are refused; any other
    pressure refuses every non-critical pod."""
    if not pressure or _critical(pod):
        return None
    if pressure == ("MemoryPressure",):
        if qos_class(pod) != "BestEffort":
            return None
        taint = {"key": "node.kubernetes.io/memory-pressure", "effect": "NoSchedule"}
        if tolerates(taint, pod["spec"].get("tolerations") or []):
            return None
    # helpers.go:47 "The node had condition: %v. " of a []NodeConditionType
    return Rejection(EVICTED, f"The node had condition: [{' '.join(pressure)}]. ")


def admit(
    pod: dict, node: dict, others: list[dict], pressure: tuple[str, ...] = ()
) -> Rejection | None:
    """canAdmitPod (pkg/kubelet/allocation/allocation_manager.go:611-625): the first
    handler to refuse decides; the predicates report only their first failure
    (predicate.go:215-216). `others`: the pods admitted on the node and not terminal."""
    if rejected := eviction_admit(pod, pressure):
        return rejected
    spec = pod["spec"]
    others_specs = [o["spec"] for o in others]
    allocatable = (node.get("status") or {}).get("allocatable") or {}
    reasons = _fits(spec, allocatable, others_specs)
    if not affinity_matches(spec, node):
        reasons.append(_predicate(NODE_AFFINITY))
    if not _ports_free(spec, others_specs):
        reasons.append(_predicate(NODE_PORTS))
    taints = (node.get("spec") or {}).get("taints") or []
    tolerations = spec.get("tolerations") or []
    if any(t.get("effect") == "NoExecute" and not tolerates(t, tolerations) for t in taints):
        reasons.append(_predicate(TAINTS))
    return reasons[0] if reasons else None
