"""Golden tests of the simulated kubelet's node-resource behaviour on a fake clock: pod
admission (ground-truth rows 53, 54). No cluster; each expectation cites the upstream source
it follows (k8s.io/kubernetes v1.36.3)."""

from kubeproof.fidelity.golden import golden_node, pod_object, simulate
from kubeproof.nodesim import admission

SLEEP = {"name": "app", "image": "busybox:1.36", "command": ["sleep", "3600"]}


def asking(cpu: str | None = None, memory: str | None = None, **more) -> dict:
    requests = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v} | more
    return {**SLEEP, "resources": {"requests": requests}}


def test_a_pod_asking_more_cpu_than_allocatable_is_rejected_out_of_cpu():
    # predicate.go:234-236,409-411 (OutOfcpu, InsufficientResourceError in milli-CPU);
    # kubelet.go:2589-2597 rejectPod: Warning event, phase Failed, "Pod was rejected: "
    pod = pod_object({"containers": [asking(cpu="6")]})
    trace = simulate(pod, 30)
    text = "Node didn't have enough resource: cpu, requested: 6000, used: 0, capacity: 4000"
    assert trace.event_lines() == [f"0 Warning OutOfcpu: {text}"]
    status = trace.statuses[-1][1]
    assert status["phase"] == "Failed"
    assert status["reason"] == "OutOfcpu"
    assert status["message"] == "Pod was rejected: " + text
    assert "containerStatuses" not in status and status["conditions"] == []
    assert len(trace.statuses) == 1  # nothing runs afterwards


def test_used_counts_the_pods_already_admitted_and_memory_is_in_bytes():
    # fit.go:709-718: memory compared in bytes against allocatable (capacity less the
    # 100Mi hard eviction threshold, node_container_manager_linux.go:279-299)
    others = [pod_object({"containers": [asking(cpu="3", memory="15Gi")]}, name="big")]
    trace = simulate(pod_object({"containers": [asking(cpu="500m", memory="1Gi")]}), 5,
                     others=others)  # fmt: skip
    allocatable = 16 * 2**30 - 100 * 2**20
    assert trace.events[0][2:] == (
        "OutOfmemory",
        f"Node didn't have enough resource: memory, requested: {2**30}, used: {15 * 2**30}, "
        f"capacity: {allocatable}",
    )


def test_only_the_first_failure_is_reported_pods_before_cpu():
    # fit.go:681-690 (pods first), predicate.go:215-216 (first reason only)
    node = golden_node({"pods": "1"})
    others = [pod_object({"containers": [SLEEP]}, name="one")]
    trace = simulate(pod_object({"containers": [asking(cpu="9")]}), 5, node=node, others=others)
    assert trace.events[0][2:] == (
        "OutOfpods",
        "Node didn't have enough resource: pods, requested: 1, used: 1, capacity: 1",
    )


def test_init_containers_and_sidecars_count_as_the_scheduler_counts_them():
    # k8s.io/component-helpers/resource/helpers.go PodRequests: max(sum of containers plus
    # sidecars, each init container plus the sidecars before it)
    spec = {
        "initContainers": [
            {**asking(cpu="1"), "name": "side", "restartPolicy": "Always"},
            {**asking(cpu="3"), "name": "setup"},
        ],
        "containers": [asking(cpu="500m")],
    }
    assert admission.pod_requests(spec)["cpu"] == 4000
    assert admission.pod_requests({"containers": [asking(cpu="1m"), asking(cpu="0.0005")]}) == {
        "cpu": 2
    }


def test_a_node_selector_mismatch_is_a_predicate_failure():
    # eventhandlers.go:751-752 (NodeAffinity, ErrReasonPod); predicate.go:226-229,425-427
    pod = pod_object({"containers": [SLEEP], "nodeSelector": {"disk": "ssd"}})
    trace = simulate(pod, 5)
    assert trace.event_lines() == [
        "0 Warning NodeAffinity: Predicate NodeAffinity failed: node(s) didn't match Pod's "
        "node affinity/selector"
    ]


def test_an_untolerated_no_execute_taint_rejects_but_no_schedule_does_not():
    # predicate.go:444-454: the kubelet only looks at NoExecute taints
    taint = {"key": "dedicated", "value": "db", "effect": "NoExecute"}
    trace = simulate(pod_object({"containers": [SLEEP]}), 5, node=golden_node(taints=[taint]))
    assert trace.events[0][2] == "TaintToleration"
    assert trace.events[0][3] == (
        "Predicate TaintToleration failed: node(s) had taints that the pod didn't tolerate"
    )
    soft = golden_node(taints=[{**taint, "effect": "NoSchedule"}])
    trace = simulate(pod_object({"containers": [SLEEP]}), 5, node=soft)
    assert trace.events[0][2] == "Pulling"
    tolerated = pod_object(
        {"containers": [SLEEP], "tolerations": [{"key": "dedicated", "operator": "Exists"}]}
    )
    assert simulate(tolerated, 5, node=golden_node(taints=[taint])).events[0][2] == "Pulling"


def test_memory_pressure_rejects_best_effort_pods_only():
    # eviction_manager.go:146-185 Admit; helpers.go:48 "The node had condition: %v. "
    trace = simulate(pod_object({"containers": [SLEEP]}), 5, pressure=("MemoryPressure",))
    assert trace.event_lines() == ["0 Warning Evicted: The node had condition: [MemoryPressure]. "]
    status = trace.statuses[-1][1]
    assert (status["phase"], status["reason"]) == ("Failed", "Evicted")
    assert status["message"] == "Pod was rejected: The node had condition: [MemoryPressure]. "
    burstable = pod_object({"containers": [asking(memory="64Mi")]})
    assert simulate(burstable, 5, pressure=("MemoryPressure",)).events[0][2] == "Pulling"


def test_disk_pressure_rejects_every_pod_that_is_not_critical():
    # eviction_manager.go:162-178: a condition besides memory pressure refuses all pods;
    # critical pods (priority >= 2000000000) are admitted (:155-158)
    guaranteed = {**SLEEP, "resources": {"requests": {"cpu": "1", "memory": "1Gi"},
                                         "limits": {"cpu": "1", "memory": "1Gi"}}}  # fmt: skip
    pod = pod_object({"containers": [guaranteed]})
    pressure = ("MemoryPressure", "DiskPressure")
    trace = simulate(pod, 5, pressure=pressure)
    assert trace.events[0][3] == "The node had condition: [MemoryPressure DiskPressure]. "
    critical = pod_object({"containers": [SLEEP], "priority": 2_000_001_000})
    assert simulate(critical, 5, pressure=pressure).events[0][2] == "Pulling"


def test_qos_class_follows_get_pod_qos():
    # pkg/apis/core/v1/helper/qos/qos.go
    full = {"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"cpu": "1", "memory": "1Gi"}}
    assert admission.qos_class({"spec": {"containers": [SLEEP]}}) == "BestEffort"
    assert admission.qos_class({"spec": {"containers": [asking(cpu="1")]}}) == "Burstable"
    assert admission.qos_class({"spec": {"containers": [{**SLEEP, "resources": full}]}}) == (
        "Guaranteed"
    )


# in-place resize (rows 37, 55, 56) ------------------------------------------------------
def running_pod(cpu: str = "500m", others: list[dict] | None = None):
    """A Burstable pod driven until its container runs; returns (runtime, admit, now)."""
    from kubeproof.fidelity.golden import START, StaticWorld
    from kubeproof.nodesim import catalog as catalog_mod
    from kubeproof.nodesim.pod import PodRuntime

    res = {"requests": {"cpu": cpu, "memory": "128Mi"}, "limits": {"memory": "256Mi"}}
    pod = pod_object({"containers": [{**SLEEP, "resources": res}]})
    rt = PodRuntime(pod, "10.244.1.2", {"docker.io/library/busybox:1.36"})
    world, catalog = StaticWorld(), catalog_mod.shipped()
    now = START
    while now < START + 3:
        rt.advance(now, world, catalog)
        now = min(rt.next_at(), START + 3)
    node = golden_node()

    def admit(p):
        return admission.admit(p, node, others or [])

    return rt, admit, now


def resize_to(rt, cpu: str) -> None:
    rt.obj["spec"]["containers"][0]["resources"]["requests"]["cpu"] = cpu
    rt.obj["metadata"]["generation"] += 1  # the resize subresource bumps it (strategy.go:421)


def test_running_containers_report_resources_and_allocated_resources():
    # kubelet_pods.go:2406-2466,2669-2672 (InPlacePodVerticalScaling GA)
    rt, _, now = running_pod()
    status = rt.status(now, {})["containerStatuses"][0]
    assert status["resources"] == {
        "limits": {"memory": "256Mi"},
        "requests": {"cpu": "500m", "memory": "128Mi"},
    }
    assert status["allocatedResources"] == {"cpu": "500m", "memory": "128Mi"}


def test_a_resize_that_fits_starts_then_completes_at_the_next_relist():
    # allocation_manager.go:572-586 (ResizeStarted, PodResizeInProgress at the generation);
    # kubelet.go:2059-2067,2270-2274 (the relist after actuation: ResizeCompleted, cleared)
    rt, admit, now = running_pod()
    resize_to(rt, "1")
    events = rt.sync_resize(now, admit)
    summary = (
        '{"containers":[{"name":"app","resources":{"limits":{"memory":"256Mi"},'
        '"requests":{"cpu":"1","memory":"128Mi"}}}],"generation":2}'
    )
    assert [(e.type, e.reason, e.message) for e in events] == [
        ("Normal", "ResizeStarted", f"Pod resize started: {summary}")
    ]
    status = rt.status(now, {})
    progress = next(c for c in status["conditions"] if c["type"] == "PodResizeInProgress")
    assert (progress["status"], progress["observedGeneration"]) == ("True", 2)
    assert status["conditions"][0]["type"] == "PodResizeInProgress"
    app = status["containerStatuses"][0]
    assert app["allocatedResources"]["cpu"] == "1"
    assert app["resources"]["requests"]["cpu"] == "500m"  # not actuated yet
    assert rt.next_at() <= now + 1.0
    later = now + 1.0
    events = rt.sync_resize(later, admit)
    assert [(e.reason, e.message) for e in events] == [
        ("ResizeCompleted", f"Pod resize completed: {summary}")
    ]
    status = rt.status(later, status)
    assert not [c for c in status["conditions"] if c["type"].startswith("PodResize")]
    assert status["containerStatuses"][0]["resources"]["requests"]["cpu"] == "1"
    assert status["observedGeneration"] == 2


def test_a_resize_beyond_what_is_free_is_deferred_with_the_admission_message():
    # allocation_manager.go:589-597, status_manager.go:318-320 (any reason but Infeasible is
    # Deferred), events/resize.go:53-55 (Pod resize Deferred: {summary with error})
    others = [pod_object({"containers": [asking(cpu="3")]}, name="big")]
    rt, admit, now = running_pod(others=others)
    resize_to(rt, "2")
    events = rt.sync_resize(now, admit)
    text = "Node didn't have enough resource: cpu, requested: 2000, used: 3000, capacity: 4000"
    assert len(events) == 1 and (events[0].type, events[0].reason) == (
        "Warning",
        "ResizeDeferred",
    )
    assert events[0].message == (
        'Pod resize Deferred: {"containers":[{"name":"app","resources":{"limits":'
        '{"memory":"256Mi"},"requests":{"cpu":"2","memory":"128Mi"}}}],"generation":2,'
        f'"error":"{text}"}}'
    )
    status = rt.status(now, {})
    pending = next(c for c in status["conditions"] if c["type"] == "PodResizePending")
    assert (pending["reason"], pending["message"], pending["observedGeneration"]) == (
        "Deferred",
        text,
        2,
    )
    assert rt.sync_resize(now + 5, admit) == []  # same reason and generation: no new event
    assert status["containerStatuses"][0]["allocatedResources"]["cpu"] == "500m"
    resize_to(rt, "500m")  # reverted: the pending condition is cleared (AM:565-568)
    assert rt.sync_resize(now + 6, admit) == []
    assert not [c for c in rt.status(now + 6, status)["conditions"] if "Resize" in c["type"]]


def test_a_restartcontainer_resize_policy_kills_and_restarts_the_container():
    # kuberuntime_manager.go:755-800 computePodResizeAction: the changed resource's policy is
    # RestartContainer → Killing "Container app resize requires restart", started again
    from kubeproof.fidelity.golden import StaticWorld
    from kubeproof.nodesim import catalog as catalog_mod

    rt, admit, now = running_pod()
    app = rt.obj["spec"]["containers"][0]
    app["resizePolicy"] = [{"resourceName": "cpu", "restartPolicy": "RestartContainer"}]
    rt.obj["spec"]["terminationGracePeriodSeconds"] = 2
    resize_to(rt, "1")
    events = rt.sync_resize(now, admit)
    assert [(e.reason, e.message) for e in events] == [
        ("ResizeStarted", events[0].message),
        ("Killing", "Container app resize requires restart"),
    ]
    world, catalog = StaticWorld(), catalog_mod.shipped()
    end = now + 10
    while now < end:
        rt.advance(now, world, catalog)
        now = max(min(rt.next_at(), end), now + 1e-3)
    status = rt.status(now, {})["containerStatuses"][0]
    assert status["restartCount"] == 1
    assert "running" in status["state"]
    # busybox's sleep ignores SIGTERM: killed at the end of the 2 s grace period
    assert status["lastState"]["terminated"]["exitCode"] == 137


def test_a_memory_only_restart_policy_does_not_restart_on_a_cpu_resize():
    rt, admit, now = running_pod()
    app = rt.obj["spec"]["containers"][0]
    app["resizePolicy"] = [{"resourceName": "memory", "restartPolicy": "RestartContainer"}]
    resize_to(rt, "1")
    assert [e.reason for e in rt.sync_resize(now, admit)] == ["ResizeStarted"]
