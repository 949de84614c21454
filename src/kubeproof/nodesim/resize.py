"""In-place pod resize (InPlacePodVerticalScaling, GA in 1.35) as a v1.36.3 kubelet runs it:
the allocation the pod was admitted at, a new desired spec (from `kubectl patch --subresource
resize`, which bumps metadata.generation) admitted like a new pod, the PodResizePending /
PodResizeInProgress conditions and the Resize* events, and the resources the runtime reports
per container once actuated.

Paths are in k8s.io/kubernetes v1.36.3; AM = pkg/kubelet/allocation/allocation_manager.go."""

import copy
import json
from collections.abc import Callable

from kubeproof.nodesim.admission import Rejection
from kubeproof.nodesim.kubeevent import Event, ts
from kubeproof.nodesim.quantity import parse
from kubeproof.nodesim.timing import PLEG_RELIST

_RESOURCES = ("cpu", "memory")


def _resources(spec: dict) -> dict[str, dict]:
    """Each container's resources (regular containers and sidecars are resizable,
    AM:639-647), canonical as the apiserver stores them."""
    out = {}
    for c in [*(spec.get("initContainers") or []), *(spec.get("containers") or [])]:
        if c in (spec.get("initContainers") or []) and c.get("restartPolicy") != "Always":
            continue
        out[c["name"]] = copy.deepcopy(c.get("resources") or {})
    return out


def _same(a: dict, b: dict) -> bool:
    """Semantic equality of two ResourceRequirements (quantities compared by value)."""
    for part in ("requests", "limits"):
        x, y = a.get(part) or {}, b.get(part) or {}
        if set(x) != set(y) or any(parse(x[k]) != parse(y[k]) for k in x):
            return False
    return True


def _restarts(spec: dict, allocated: dict[str, dict]) -> list[str]:
    """computePodResizeAction (pkg/kubelet/kuberuntime/kuberuntime_manager.go:755-800): a
    container whose changed cpu or memory (request or limit) has resizePolicy
    RestartContainer is killed and started again; NotRequired is the default."""
    out = []
    for c in [*(spec.get("initContainers") or []), *(spec.get("containers") or [])]:
        if c["name"] not in allocated:
            continue
        policy = {
            p.get("resourceName"): p.get("restartPolicy") for p in c.get("resizePolicy") or []
        }
        old, new = allocated[c["name"]], c.get("resources") or {}
        for resource in _RESOURCES:
            changed = any(
                parse((old.get(part) or {}).get(resource, "0"))
                != parse((new.get(part) or {}).get(resource, "0"))
                for part in ("requests", "limits")
            )
            if changed and policy.get(resource) == "RestartContainer":
                out.append(c["name"])
                break
    return out


def summary(spec: dict, generation: int, error: str = "") -> str:
    """pkg/kubelet/events/resize.go:62-92 makeResourceSummaryFromSpec: the spec's
    resources as Go's json.Marshal writes podResourceSummary (fields in struct order,
    omitempty, no spaces)."""
    out: dict = {}
    for key, kind in (("initContainers", "initContainers"), ("containers", "containers")):
        rows = [
            {"name": c["name"], "resources": _ordered(c.get("resources") or {})}
            for c in spec.get(kind) or []
        ]
        if rows:
            out[key] = rows
    out["generation"] = generation
    if error:
        out["error"] = error
    return json.dumps(out, separators=(",", ":"), ensure_ascii=False)


def _ordered(res: dict) -> dict:
    # v1.ResourceRequirements field order: limits, requests, claims; map keys sorted
    return {k: dict(sorted(res[k].items())) for k in ("limits", "requests", "claims") if res.get(k)}


class Resize:
    """One pod's allocation and resize state (the allocation manager's checkpoint and the
    status manager's resize conditions)."""

    def __init__(self, spec: dict):
        self.allocated = _resources(spec)  # AM:538-544: checkpointed at admission
        self.actual = copy.deepcopy(self.allocated)  # what the runtime reports
        self.pending: dict | None = None  # the PodResizePending condition
        self.in_progress: dict | None = None  # the PodResizeInProgress condition
        self.actuate_at: float | None = None  # the relist that sees it done
        self.generation = 0
        # containers the last admitted resize restarts (their resizePolicy says so)
        self.restart: list[str] = []

    def desired_differs(self, spec: dict) -> bool:
        want = _resources(spec)
        return set(want) != set(self.allocated) or any(
            not _same(want[n], self.allocated[n]) for n in want
        )

    def sync(
        self,
        now: float,
        pod: dict,
        admit: Callable[[dict], Rejection | None],
    ) -> list[Event]:
        """AM:563-600 handlePodResourcesResize, then SyncPod's check (pkg/kubelet/
        kubelet.go:2059-2067): resize started, pending or completed."""
        spec, generation = pod["spec"], pod["metadata"].get("generation") or 0
        events: list[Event] = []
        if self.actuate_at is not None and now >= self.actuate_at:
            # the relist after the sync that actuated it (kubelet.go:2270-2274): allocated
            # == actual, the condition is cleared, ResizeCompleted (kubelet.go:2063-2066)
            self.actual, self.actuate_at = copy.deepcopy(self.allocated), None
            gen = self.in_progress["observedGeneration"] if self.in_progress else generation
            self.in_progress = None
            message = f"Pod resize completed: {summary(spec, gen)}"
            events.append(Event("Normal", "ResizeCompleted", message))
        if not self.desired_differs(spec):
            self.pending = None  # AM:565-568 ClearPodResizePendingCondition
            return events
        rejection = admit(pod)
        if rejection is None:
            self.restart = _restarts(spec, self.allocated)
            self.allocated = _resources(spec)
            self.pending = None
            # AM:579-586: the in-progress condition restarts at this generation
            self.in_progress = self._condition("PodResizeInProgress", now, "", "", generation)
            self.actuate_at = now + PLEG_RELIST
            events.append(
                Event("Normal", "ResizeStarted", f"Pod resize started: {summary(spec, generation)}")
            )
            return events
        # status_manager.go:318-320: any reason but Infeasible is Deferred; an event only
        # when the reason or generation changed (AM:590-597)
        reason = "Infeasible" if rejection.reason == "Infeasible" else "Deferred"
        old = self.pending
        if old is None or old["reason"] != reason or old["observedGeneration"] != generation:
            self.pending = self._condition(
                "PodResizePending", now, reason, rejection.message, generation, old
            )
            text = summary(spec, generation, rejection.message)
            events.append(Event("Warning", f"Resize{reason}", f"Pod resize {reason}: {text}"))
        return events

    @staticmethod
    def _condition(
        kind: str, now: float, reason: str, message: str, gen: int, old: dict | None = None
    ) -> dict:
        """status_manager.go:1450-1468 updatedPodResizeCondition."""
        same = old is not None and old.get("reason") == reason
        condition = {
            "type": kind,
            "observedGeneration": gen,
            "status": "True",
            "lastProbeTime": ts(now),
            "lastTransitionTime": old["lastTransitionTime"] if same else ts(now),
        }
        if reason:
            condition["reason"] = reason
        if message:
            condition["message"] = message
        return condition

    def allocated_spec(self, spec: dict) -> dict:
        """The spec at its allocated resources (AM:627-637 getAllocatedPods, via
        UpdatePodFromAllocation): what admission counts for a pod already on the node."""
        out = copy.deepcopy(spec)
        for c in [*(out.get("initContainers") or []), *(out.get("containers") or [])]:
            if c["name"] in self.allocated:
                c["resources"] = copy.deepcopy(self.allocated[c["name"]])
        return out

    def conditions(self) -> list[dict]:
        return [c for c in (self.pending, self.in_progress) if c]

    def container_fields(self, name: str, running: bool) -> dict:
        """kubelet_pods.go:2406-2466,2669-2672: `resources` (the allocation; what the
        runtime reports for a running container) and `allocatedResources` (the allocated
        requests, omitted when empty)."""
        if name not in self.allocated:
            return {}
        allocated = self.allocated[name]
        shown = self.actual.get(name, allocated) if running else allocated
        out: dict = {"resources": _ordered(shown)}
        if allocated.get("requests"):
            out["allocatedResources"] = dict(allocated["requests"])
        return out

    def next_at(self) -> float | None:
        return self.actuate_at
