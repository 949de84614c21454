"""A kubelet's Node status, computed as the v1.36.3 kubelet computes it: the condition
setters with their reasons, messages, transition times and events, the report cadence, the
eviction manager's pressure hysteresis and the allocatable it derives from capacity.

Pure functions of a clock (epoch seconds) and the node's last known conditions, so golden
tests drive them without a cluster (tests/nodesim/test_node_status.py). Paths below are in
k8s.io/kubernetes v1.36.3; NS = pkg/kubelet/nodestatus/setters.go."""

import datetime as dt
import random
import struct
from dataclasses import dataclass, field
from decimal import Decimal

from kubeproof.nodesim.quantity import parse

# pkg/kubelet/apis/config/v1beta1/defaults.go:148-149 nodeStatusUpdateFrequency: the setters
# run (and the eviction manager observes, pkg/kubelet/kubelet.go:197) every 10 s
STATUS_UPDATE_SECONDS = 10
# defaults.go:142 nodeStatusReportFrequency: an unchanged status is posted every 5 min
STATUS_REPORT_SECONDS = 300
# defaults.go:151-152 nodeLeaseDurationSeconds 40; renewed every 0.25 x 40 = 10 s
# (pkg/kubelet/kubelet.go:239,1137)
LEASE_SECONDS = 40
LEASE_RENEW_SECONDS = 10
# defaults.go:237-238 evictionPressureTransitionPeriod: a pressure condition stays True this
# long after its signal was last observed (pkg/kubelet/eviction/helpers.go:1075-1084)
PRESSURE_TRANSITION_SECONDS = 300

PRESSURES = ("MemoryPressure", "DiskPressure", "PIDPressure")
# NS:596-606 (memory), 720-730 (disk), 658-668 (PID): (type, True reason, True message,
# True event, False reason, False message, False event)
_SETTERS = (
    (
        "MemoryPressure",
        "KubeletHasInsufficientMemory",
        "kubelet has insufficient memory available",
        "NodeHasInsufficientMemory",
        "KubeletHasSufficientMemory",
        "kubelet has sufficient memory available",
        "NodeHasSufficientMemory",
    ),
    (
        "DiskPressure",
        "KubeletHasDiskPressure",
        "kubelet has disk pressure",
        "NodeHasDiskPressure",
        "KubeletHasNoDiskPressure",
        "kubelet has no disk pressure",
        "NodeHasNoDiskPressure",
    ),
    (
        "PIDPressure",
        "KubeletHasInsufficientPID",
        "kubelet has insufficient PID available",
        "NodeHasInsufficientPID",
        "KubeletHasSufficientPID",
        "kubelet has sufficient PID available",
        "NodeHasSufficientPID",
    ),
)
# pkg/kubelet/runtime.go:127-128: what runtimeErrors reports once the runtime stops answering
RUNTIME_DOWN = "container runtime is down"


def timestamp(now: float) -> str:
    return dt.datetime.fromtimestamp(now, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def node_event_message(node: str, reason: str) -> str:
    """pkg/kubelet/kubelet_node_status.go:638-641 recordNodeStatusEvent."""
    return f"Node {node} status is now: {reason}"


def setters(
    original: list[dict], now: float, ready_error: str | None, pressure: tuple[str, ...]
) -> tuple[list[dict], list[str]]:
    """The pressure and Ready setters in the kubelet's order (pkg/kubelet/kubelet_node_status.go
    :698-701) applied to the node's conditions as last seen on the server: the new
    conditions, and the reasons of the Normal events they record."""
    stamp = timestamp(now)
    conditions = [dict(c) for c in original]
    by_type = {c["type"]: c for c in conditions}
    events: list[str] = []
    for kind, t_reason, t_message, t_event, f_reason, f_message, f_event in _SETTERS:
        condition = by_type.get(kind)
        new = condition is None
        if new:  # NS: a missing condition starts Unknown, so either branch below fires
            condition = {"type": kind, "status": "Unknown"}
        condition["lastHeartbeatTime"] = stamp
        on = kind in pressure
        want = "True" if on else "False"
        if condition["status"] != want:
            condition["status"] = want
            condition["reason"] = t_reason if on else f_reason
            condition["message"] = t_message if on else f_message
            condition["lastTransitionTime"] = stamp
            events.append(t_event if on else f_event)
        if new:
            conditions.append(condition)
    # NS:486-548 ReadyCondition (kept last in the list, NS:481-483)
    ready = {
        "type": "Ready",
        "status": "False" if ready_error else "True",
        "reason": "KubeletNotReady" if ready_error else "KubeletReady",
        "message": ready_error or "kubelet is posting ready status",
        "lastHeartbeatTime": stamp,
    }
    for i, condition in enumerate(conditions):
        if condition["type"] == "Ready":
            if condition["status"] == ready["status"]:
                ready["lastTransitionTime"] = condition.get("lastTransitionTime", stamp)
            else:  # NS:529-531,538-547: a flip (Unknown included) records an event
                ready["lastTransitionTime"] = stamp
                events.append("NodeReady" if ready_error is None else "NodeNotReady")
            conditions[i] = ready
            break
    else:  # NS:535-537: the first Ready condition records no event
        ready["lastTransitionTime"] = stamp
        conditions.append(ready)
    return conditions, events


def conditions_changed(before: list[dict], after: list[dict]) -> bool:
    """pkg/kubelet/kubelet_node_status.go:753-800 nodeConditionsHaveChanged: heartbeat
    times ignored, order ignored."""

    def key(conditions: list[dict]) -> list[tuple]:
        rows = [
            tuple(sorted((k, str(v)) for k, v in c.items() if k != "lastHeartbeatTime"))
            for c in conditions
        ]
        return sorted(rows)

    return len(before) != len(after) or key(before) != key(after)


@dataclass
class StatusReporter:
    """One node's status loop: the eviction manager's memory of pressure signals and the
    time of the last report."""

    rng: random.Random = field(default_factory=random.Random)
    last_report: float | None = None
    delay: float = 0.0
    observed_at: dict[str, float] = field(default_factory=dict)

    def pressure(self, now: float, signals: tuple[str, ...]) -> tuple[str, ...]:
        """pkg/kubelet/eviction/eviction_manager.go:336-339: conditions observed now, and
        those observed within the transition period, stay."""
        for kind in signals:
            self.observed_at[kind] = now
        return tuple(
            k
            for k in PRESSURES
            if k in self.observed_at and now - self.observed_at[k] < PRESSURE_TRANSITION_SECONDS
        )

    def sync(
        self,
        now: float,
        original: list[dict],
        ready_error: str | None,
        signals: tuple[str, ...],
    ) -> tuple[list[dict] | None, list[str]]:
        """pkg/kubelet/kubelet_node_status.go:489-546 tryUpdateNodeStatus: the conditions to
        post (None: nothing to post this round) and the events recorded."""
        new, events = setters(original, now, ready_error, self.pressure(now, signals))
        changed = conditions_changed(original, new)
        expired = self.last_report is None or (
            now - self.last_report >= STATUS_REPORT_SECONDS + self.delay
        )
        if not (changed or expired):
            return None, events
        if changed or self.last_report is None:  # :524-528 calculateDelay, :544-546
            self.delay = STATUS_REPORT_SECONDS * (-0.5 + self.rng.random())
        else:
            self.delay = 0.0
        self.last_report = now
        return new, events


# Allocatable: pkg/kubelet/nodestatus/setters.go:305-316 (capacity minus the reservation,
# never negative); the reservation is kube-reserved + system-reserved (empty by default) +
# the hard eviction thresholds (pkg/kubelet/cm/node_container_manager_linux.go:279-299,
# pkg/kubelet/cm/helpers.go:44-65) of pkg/kubelet/eviction/defaults_linux.go:22-28:
# memory.available<100Mi, nodefs.available<10%.
EVICTION_MEMORY = 100 * 2**20
EVICTION_NODEFS_PERCENT = struct.unpack("f", struct.pack("f", 0.1))[0]  # a float32 in Go

_BINARY = ("Ki", "Mi", "Gi", "Ti", "Pi", "Ei")


def reservation(capacity: dict[str, str]) -> dict[str, int]:
    out = {}
    if "memory" in capacity:
        out["memory"] = EVICTION_MEMORY
    if "ephemeral-storage" in capacity:
        # pkg/kubelet/eviction/api/types.go:116 GetThresholdQuantity: int64(float64(cap) * pct)
        out["ephemeral-storage"] = int(
            float(int(parse(capacity["ephemeral-storage"]))) * EVICTION_NODEFS_PERCENT
        )
    return out


def allocatable(capacity: dict[str, str]) -> dict[str, str]:
    out = dict(capacity)
    for key, reserved in reservation(capacity).items():
        left = max(parse(capacity[key]) - reserved, Decimal(0))
        out[key] = canonical(left, binary=capacity[key].endswith(_BINARY))
    return out


def canonical(value: Decimal, binary: bool) -> str:
    """An integer quantity as k8s.io/apimachinery's Quantity.String prints it: in the
    capacity's format (BinarySI: the largest exact power of 1024; DecimalSI: of 1000)."""
    number = int(value)
    if number == 0:
        return "0"
    base, suffixes = (1024, _BINARY) if binary else (1000, ("k", "M", "G", "T", "P", "E"))
    if binary and abs(number) < 1024:
        return str(number)
    suffix = ""
    for candidate in suffixes:
        if number % base:
            break
        number //= base
        suffix = candidate
    return f"{number}{suffix}"
