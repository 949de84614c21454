"""Golden tests of the simulated kubelet's Node status, without a cluster: a node's health
and a fake clock in, the exact conditions, events, report times and allocatable out. Every
expected value is read from k8s.io/kubernetes v1.36.3 (NS = pkg/kubelet/nodestatus/setters.go)."""

import random

from kubeproof.nodesim import nodestatus
from kubeproof.nodesim.nodes import NodeState, simulated_health, startup_events
from kubeproof.nodesim.nodestatus import StatusReporter, allocatable, setters, timestamp

T0 = 1_800_000_000.0  # 2027-01-15T08:00:00Z


def _by_type(conditions):
    return {c["type"]: c for c in conditions}


def _fields(condition):
    return condition["status"], condition["reason"], condition["message"]


def test_first_conditions_are_the_setters_defaults_in_order():
    conditions, events = setters([], T0, None, ())
    # kubelet_node_status.go:698-701 setter order; Ready last (NS:481-483)
    assert [c["type"] for c in conditions] == [
        "MemoryPressure",
        "DiskPressure",
        "PIDPressure",
        "Ready",
    ]
    got = _by_type(conditions)
    # NS:603-605, 727-729, 665-667, 486-490
    assert _fields(got["MemoryPressure"]) == (
        "False",
        "KubeletHasSufficientMemory",
        "kubelet has sufficient memory available",
    )
    assert _fields(got["DiskPressure"]) == (
        "False",
        "KubeletHasNoDiskPressure",
        "kubelet has no disk pressure",
    )
    assert _fields(got["PIDPressure"]) == (
        "False",
        "KubeletHasSufficientPID",
        "kubelet has sufficient PID available",
    )
    assert _fields(got["Ready"]) == ("True", "KubeletReady", "kubelet is posting ready status")
    assert all(c["lastTransitionTime"] == timestamp(T0) for c in conditions)
    # NS:606,668,730 record an event for a new condition; a new Ready none (NS:535-537)
    assert events == ["NodeHasSufficientMemory", "NodeHasNoDiskPressure", "NodeHasSufficientPID"]


def test_pressure_true_wording_and_events():
    first, _ = setters([], T0, None, ())
    conditions, events = setters(
        first, T0 + 10, None, ("MemoryPressure", "DiskPressure", "PIDPressure")
    )
    got = _by_type(conditions)
    # NS:596-599, 720-723, 658-661
    assert _fields(got["MemoryPressure"]) == (
        "True",
        "KubeletHasInsufficientMemory",
        "kubelet has insufficient memory available",
    )
    assert _fields(got["DiskPressure"]) == (
        "True",
        "KubeletHasDiskPressure",
        "kubelet has disk pressure",
    )
    assert _fields(got["PIDPressure"]) == (
        "True",
        "KubeletHasInsufficientPID",
        "kubelet has insufficient PID available",
    )
    assert got["MemoryPressure"]["lastTransitionTime"] == timestamp(T0 + 10)
    assert events == ["NodeHasInsufficientMemory", "NodeHasDiskPressure", "NodeHasInsufficientPID"]


def test_transition_time_is_kept_unless_the_status_flips():
    first, _ = setters([], T0, None, ())
    again, events = setters(first, T0 + 10, None, ())
    assert events == []
    for condition in again:  # NS:525-527 and the pressure setters: only the heartbeat moves
        assert condition["lastTransitionTime"] == timestamp(T0)
        assert condition["lastHeartbeatTime"] == timestamp(T0 + 10)
    assert not nodestatus.conditions_changed(first, again)  # kubelet_node_status.go:753-800


def test_not_ready_flip_and_back():
    first, _ = setters([], T0, None, ())
    down, events = setters(first, T0 + 10, "container runtime is down", ())
    ready = _by_type(down)["Ready"]
    # NS:506-513 with runtime.go:127-128
    assert _fields(ready) == ("False", "KubeletNotReady", "container runtime is down")
    assert ready["lastTransitionTime"] == timestamp(T0 + 10)
    assert events == ["NodeNotReady"]  # NS:544-545
    up, events = setters(down, T0 + 20, None, ())
    assert _by_type(up)["Ready"]["status"] == "True"
    assert events == ["NodeReady"]  # NS:542-543


def test_after_the_node_controller_set_unknown_every_setter_records_again():
    """What a kubelet shows when it comes back after the node lifecycle controller marked its
    node Unknown (pkg/controller/nodelifecycle/node_lifecycle_controller.go:942-953)."""
    first, _ = setters([], T0, None, ())
    unknown = [
        c
        | {
            "status": "Unknown",
            "reason": "NodeStatusUnknown",
            "message": "Kubelet stopped posting node status.",
        }
        for c in first
    ]
    back, events = setters(unknown, T0 + 120, None, ())
    assert all(c["lastTransitionTime"] == timestamp(T0 + 120) for c in back)
    assert events == [
        "NodeHasSufficientMemory",
        "NodeHasNoDiskPressure",
        "NodeHasSufficientPID",
        "NodeReady",
    ]


def test_event_message():
    # pkg/kubelet/kubelet_node_status.go:640
    state = NodeState("node-1")
    state.conditions, _ = setters([], T0, None, ())
    state.health = simulated_health({"kubeproof.dev/simulate-ready": "false"})
    _, events = state.sync(T0 + 10)
    assert [(e.type, e.reason, e.message) for e in events] == [
        ("Normal", "NodeNotReady", "Node node-1 status is now: NodeNotReady")
    ]


def test_startup_events_in_order():
    # kubelet.go:3294; NS:606,730,668 on the initial node; node_container_manager_linux.go:99
    assert [(e.type, e.reason, e.message) for e in startup_events("node-1")] == [
        ("Normal", "Starting", "Starting kubelet."),
        ("Normal", "NodeHasSufficientMemory", "Node node-1 status is now: NodeHasSufficientMemory"),
        ("Normal", "NodeHasNoDiskPressure", "Node node-1 status is now: NodeHasNoDiskPressure"),
        ("Normal", "NodeHasSufficientPID", "Node node-1 status is now: NodeHasSufficientPID"),
        ("Normal", "NodeAllocatableEnforced", "Updated Node Allocatable limit across pods"),
    ]


def test_report_cadence_posts_on_change_or_after_the_report_period():
    """kubelet_node_status.go:513 (post when changed or the period expired), :524-528 and
    :544-546 (a random delay of -0.5..0.5 x 5 min after a change or the first report, none
    after a periodic one); nodeStatusReportFrequency 5 min (v1beta1/defaults.go:142)."""
    rng = random.Random(7)
    delays = [300 * (-0.5 + random.Random(7).random())]
    reporter = StatusReporter(rng=rng)
    known, _ = setters([], T0, None, ())
    posted, _ = reporter.sync(T0, known, None, ())
    assert posted is not None  # the first round always reports
    assert reporter.delay == delays[0]
    known = posted
    due = T0 + 300 + delays[0]
    t = T0 + 10
    while t < due:
        posted, _ = reporter.sync(t, known, None, ())
        assert posted is None, t
        t += 10
    posted, _ = reporter.sync(t, known, None, ())
    assert posted is not None
    assert posted[0]["lastHeartbeatTime"] == timestamp(t)
    assert reporter.delay == 0.0
    known = posted
    posted, _ = reporter.sync(t + 10, known, "container runtime is down", ())
    assert posted is not None  # a change posts at once
    assert _by_type(posted)["Ready"]["status"] == "False"


def test_pressure_stays_five_minutes_after_the_signal_clears():
    # evictionPressureTransitionPeriod 5 min (v1beta1/defaults.go:237-238);
    # eviction_manager.go:336-339, helpers.go:1075-1084
    reporter = StatusReporter(rng=random.Random(1))
    known, _ = setters([], T0, None, ())
    known, events = reporter.sync(T0, known, None, ("MemoryPressure",))
    assert events == ["NodeHasInsufficientMemory"]
    last_seen = T0
    t = T0 + 10
    while t - last_seen < 300:
        posted, events = reporter.sync(t, known, None, ())
        known = posted or known
        assert _by_type(known)["MemoryPressure"]["status"] == "True", t - last_seen
        assert events == []
        t += 10
    known, events = reporter.sync(t, known, None, ())
    assert _by_type(known)["MemoryPressure"]["reason"] == "KubeletHasSufficientMemory"
    assert events == ["NodeHasSufficientMemory"]


def test_allocatable_with_default_reservations():
    # cm/node_container_manager_linux.go:279-299, cm/helpers.go:44-65,
    # eviction/defaults_linux.go:22-28, eviction/api/types.go:116, NS:305-316
    got = allocatable({"cpu": "4", "memory": "16Gi", "pods": "110", "ephemeral-storage": "100Gi"})
    assert got == {
        "cpu": "4",  # no kube/system reservation by default
        "memory": "16284Mi",  # 16Gi - 100Mi, printed in the capacity's BinarySI format
        "pods": "110",
        # 100Gi - int64(float64(100Gi) * float64(float32(0.1))) = 107374182400 - 10737418400
        "ephemeral-storage": "96636764000",
    }
    assert allocatable({"memory": "8Gi", "nvidia.com/gpu": "2"}) == {
        "memory": "8092Mi",
        "nvidia.com/gpu": "2",
    }
    assert allocatable({"memory": "64Mi"})["memory"] == "0"  # never negative (NS:311-314)


def test_unreachable_annotation_stops_the_kubelet():
    health = simulated_health({"kubeproof.dev/simulate-unreachable": "true"})
    assert health.stopped and health.ready
    assert not simulated_health({}).stopped
