"""Golden tests of the node-pressure eviction manager (nodesim/eviction.py) on a fake clock:
node capacity and pods' working sets in; the pressure, the node event, the pod picked and
the status and events an evicted pod shows out. Each expectation cites k8s.io/kubernetes
v1.36.3 (EV = pkg/kubelet/eviction)."""

from kubeproof.fidelity.golden import START, StaticWorld, pod_object
from kubeproof.nodesim import catalog as catalog_mod
from kubeproof.nodesim import eviction, nodestatus, timing
from kubeproof.nodesim.eviction import PodUsage, synchronize
from kubeproof.nodesim.pod import PodRuntime
from kubeproof.nodesim.process import FOREVER

MI, GI = 2**20, 2**30
CAPACITY = {"cpu": "4", "memory": "2Gi", "pods": "110"}


def pod(name: str, memory_request: str | None = None, priority: int | None = None) -> dict:
    resources = {"requests": {"memory": memory_request}} if memory_request else {}
    spec = {"containers": [{"name": "app", "image": "nginx:1.27", "resources": resources}]}
    if priority is not None:
        spec["priority"] = priority
    obj = pod_object(spec, name=name)
    obj["metadata"]["uid"] = f"uid-{name}"
    return obj


def using(obj: dict, *amounts: int) -> PodUsage:
    names = [c["name"] for c in obj["spec"]["containers"]]
    return PodUsage(obj, tuple(zip(names, amounts, strict=True)))


def test_default_hard_thresholds_are_the_kubelets():
    # EV/defaults_linux.go:22-28 DefaultEvictionHard; pkg/kubelet/kubelet.go:197 every 10 s
    assert eviction.DEFAULT_EVICTION_HARD == {
        "memory.available": "100Mi",
        "nodefs.available": "10%",
        "nodefs.inodesFree": "5%",
        "imagefs.available": "15%",
        "imagefs.inodesFree": "5%",
    }
    assert timing.EVICTION_MONITORING_PERIOD == 10.0
    assert timing.FAST(timing.EVICTION_MONITORING_PERIOD) == 1.0


def test_memory_available_at_the_threshold_is_not_pressure():
    # EV/helpers.go:943-970 thresholdsMet: met only when 100Mi > available (OpLessThan)
    a = pod("a")
    at_threshold = synchronize(CAPACITY, 2 * GI - 100 * MI, [using(a, 1 * GI)])
    assert at_threshold.pressure == () and at_threshold.victim is None
    assert at_threshold.events == ()
    below = synchronize(CAPACITY, 2 * GI - 100 * MI + 1, [using(a, 1 * GI)])
    assert below.pressure == ("MemoryPressure",)


def test_threshold_met_records_the_node_event_and_evicts_one_pod_with_upstreams_message():
    # EV/eviction_manager.go:384 "Attempting to reclaim %s"; evictionMessage (helpers.go:
    # 1240-1303) with nodeLowMessageFmt, thresholdMetMessageFmt and containerMessageFmt
    # (:46,52,75); quantities print as resource.Quantity.String (BinarySI)
    a = pod("a")
    decision = synchronize(CAPACITY, 2 * GI - 90 * MI, [using(a, 1 * GI)])
    assert [(e.type, e.reason, e.message) for e in decision.events] == [
        ("Warning", "EvictionThresholdMet", "Attempting to reclaim memory")
    ]
    assert decision.victim.pod is a
    assert decision.victim.message == (
        "The node was low on resource: memory. Threshold quantity: 100Mi, available: 90Mi. "
        "Container app was using 1Gi, request is 0, has larger consumption of memory. "
    )
    # eviction_manager.go:60-62,423: a hard threshold's gracePeriodOverride is 1 s
    assert decision.victim.grace == 1.0


def test_message_names_only_containers_over_their_request_and_prints_odd_bytes_whole():
    # helpers.go:1288-1292: usage.Cmp(requests) > 0; requests print as parsed ("64Mi")
    big = {"name": "big", "image": "nginx:1.27", "resources": {"requests": {"memory": "64Mi"}}}
    small = {"name": "small", "image": "nginx:1.27", "resources": {"requests": {"memory": "1Gi"}}}
    obj = pod_object({"containers": [big, small]}, name="two")
    message = eviction.eviction_message(using(obj, 300 * MI, 10 * MI), "100Mi", 50 * MI + 7)
    assert message == (
        "The node was low on resource: memory. Threshold quantity: 100Mi, available: "
        "52428807. Container big was using 300Mi, request is 64Mi, has larger consumption "
        "of memory. "
    )


def test_ranking_over_requests_first_then_priority_then_usage_above_requests():
    # EV/helpers.go:816-821 rankMemoryPressure = exceedMemoryRequests (:693-709), priority
    # (:680-690), memory (:712-733)
    within = using(pod("within", "1Gi"), 500 * MI)  # under its request: ranked last
    low_small = using(pod("low-small", "100Mi", priority=0), 200 * MI)
    low_big = using(pod("low-big", "100Mi", priority=0), 600 * MI)
    high = using(pod("high", None, priority=1000), 900 * MI)
    ranked = eviction.rank_memory_pressure([within, high, low_small, low_big])
    assert [u.pod["metadata"]["name"] for u in ranked] == [
        "low-big",
        "low-small",
        "high",
        "within",
    ]


def test_a_critical_pod_is_passed_over():
    # eviction_manager.go:612-618: evictPod refuses IsCriticalPod (priority >= 2000000000)
    critical = using(pod("dns", None, priority=2_000_000_000), 1 * GI)
    plain = using(pod("web", "512Mi"), 100 * MI)
    decision = synchronize(CAPACITY, 2 * GI - 10 * MI, [critical, plain])
    assert decision.victim.pod["metadata"]["name"] == "web"
    only = synchronize(CAPACITY, 2 * GI - 10 * MI, [critical])
    assert only.victim is None and only.pressure == ("MemoryPressure",)


def test_pressure_reaches_the_node_condition_and_stays_five_minutes():
    # the setters read the manager's conditions (setters.go:596-606), which stay True for
    # evictionPressureTransitionPeriod after the last observation (eviction_manager.go:336-339)
    reporter = nodestatus.StatusReporter()
    reporter.pressure(1000.0, synchronize(CAPACITY, 2 * GI, []).pressure)
    conditions, events = nodestatus.setters([], 1005.0, None, reporter.pressure(1005.0, ()))
    memory = next(c for c in conditions if c["type"] == "MemoryPressure")
    assert (memory["status"], memory["reason"]) == ("True", "KubeletHasInsufficientMemory")
    assert "NodeHasInsufficientMemory" in events
    assert reporter.pressure(1299.0, ()) == ("MemoryPressure",)
    assert reporter.pressure(1300.0, ()) == ()


def _running(obj: dict) -> tuple[PodRuntime, float]:
    catalog, world = catalog_mod.shipped(), StaticWorld()
    rt = PodRuntime(obj, "10.244.1.2", {"docker.io/library/busybox:1.36"})
    now = START
    while not any(c.stage == "running" for c in rt.app) or now < START + 5:
        rt.advance(now, world, catalog)
        now = max(min(rt.next_at(), now + 1), now + 1e-3)
    return rt, now


def test_an_evicted_pod_is_failed_with_the_message_and_a_disruption_target_condition():
    # eviction_manager.go:611-633 evictPod: Warning Evicted, then killPodFunc with the
    # override grace (1 s, raised to minimumGracePeriodInSeconds 2 s by killContainer,
    # kuberuntime_container.go:886-887,905-906), status Failed / Evicted / the message and
    # the DisruptionTarget condition (:431-437), copied first among the generated ones
    # (kubelet_pods.go:1982-1989). busybox's `sleep` ignores SIGTERM: killed at 2 s (137).
    catalog, world = catalog_mod.shipped(), StaticWorld()
    spec = {"containers": [{"name": "app", "image": "busybox:1.36", "command": ["sleep", "3600"]}]}
    rt, now = _running(pod_object(spec))
    current = rt.status(now, {})
    message = (
        "The node was low on resource: memory. Threshold quantity: 100Mi, available: 90Mi. "
        "Container app was using 1Gi, request is 0, has larger consumption of memory. "
    )
    events = rt.evict(now, catalog, message, eviction.IMMEDIATE_EVICTION_GRACE)
    assert [(e.type, e.reason, e.message) for e in events] == [
        ("Warning", "Evicted", message),
        ("Normal", "Killing", "Stopping container app"),
    ]
    status = rt.status(now, current)
    assert (status["phase"], status["reason"], status["message"]) == ("Failed", "Evicted", message)
    types = [c["type"] for c in status["conditions"]]
    assert types[:2] == ["DisruptionTarget", "PodReadyToStartContainers"]
    target = status["conditions"][0]
    assert (target["status"], target["reason"], target["message"]) == (
        "True",
        "TerminationByKubelet",
        message,
    )
    assert rt.next_at() == now + 2.0
    rt.advance(now + 2.0, world, catalog)
    final = rt.status(now + 3.0, status)
    terminated = final["containerStatuses"][0]["state"]["terminated"]
    assert (terminated["exitCode"], terminated["reason"]) == (137, "Error")
    assert final["phase"] == "Failed" and final["reason"] == "Evicted"
    assert rt.stopped() and rt.next_at() == FOREVER
