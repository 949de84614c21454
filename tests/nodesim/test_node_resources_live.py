"""Node resources through stock kubectl on an embedded cluster: the kubelet's admission of a
pod bound straight to a node (spec.nodeName) and an in-place resize with
`kubectl patch --subresource resize` (ground-truth rows 37, 53, 55, 56)."""

import json

import pytest

from tests.conftest import wait_for
from tests.nodesim.conftest import apply, events, get

pytestmark = pytest.mark.cluster


def test_a_pod_bound_to_a_node_it_does_not_fit_is_rejected_out_of_cpu(sim, ns):
    # predicate.go:234-236,409-411; kubelet.go:2589-2597 rejectPod
    apply(
        sim,
        """
apiVersion: v1
kind: Pod
metadata: {name: greedy}
spec:
  nodeName: node-1
  containers:
  - {name: app, image: busybox:1.36, command: [sleep, "3600"], resources: {requests: {cpu: "64"}}}
""",
        ns,
    )
    status = wait_for(
        lambda: (s := get(sim, "pod", "greedy", ns)["status"]).get("phase") == "Failed" and s,
        30,
        what="greedy rejected",
    )
    used = status["message"].split("used: ")[1].split(",")[0]
    assert status["reason"] == "OutOfcpu"
    assert status["message"] == (
        "Pod was rejected: Node didn't have enough resource: cpu, requested: 64000, "
        f"used: {used}, capacity: 4000"
    )
    assert "containerStatuses" not in status
    seen = [(e["type"], e["reason"], e["message"]) for e in events(sim, "greedy", ns)]
    assert ("Warning", "OutOfcpu", status["message"].removeprefix("Pod was rejected: ")) in seen
    # kubectl get pods shows the reason as the pod's STATUS
    assert "OutOfcpu" in sim.kubectl("get", "pod", "greedy", "-n", ns).stdout


def test_an_in_place_resize_is_started_and_completed(sim, ns):
    # allocation_manager.go:572-586; kubelet.go:2059-2067; kubelet_pods.go:2669-2672
    apply(
        sim,
        """
apiVersion: v1
kind: Pod
metadata: {name: elastic}
spec:
  containers:
  - name: app
    image: busybox:1.36
    command: [sleep, "3600"]
    resources: {requests: {cpu: 100m, memory: 64Mi}, limits: {memory: 128Mi}}
""",
        ns,
    )
    wait_for(
        lambda: get(sim, "pod", "elastic", ns)["status"].get("phase") == "Running",
        60,
        what="elastic running",
    )
    patch = {"spec": {"containers": [{"name": "app", "resources": {"requests": {"cpu": "200m"}}}]}}
    sim.kubectl(
        "patch", "pod", "elastic", "-n", ns, "--subresource", "resize", "-p", json.dumps(patch)
    )

    def resized():
        pod = get(sim, "pod", "elastic", ns)
        app = pod["status"]["containerStatuses"][0]
        done = app.get("resources", {}).get("requests", {}).get("cpu") == "200m"
        return done and pod

    pod = wait_for(resized, 30, what="resize actuated")
    app = pod["status"]["containerStatuses"][0]
    assert app["allocatedResources"] == {"cpu": "200m", "memory": "64Mi"}
    assert pod["metadata"]["generation"] == 2 and pod["status"]["observedGeneration"] == 2
    assert not [c for c in pod["status"]["conditions"] if c["type"].startswith("PodResize")]
    reasons = wait_for(
        lambda: (
            (r := [e["reason"] for e in events(sim, "elastic", ns)])
            and "ResizeCompleted" in r
            and r
        ),
        15,
        what="ResizeCompleted event",
    )
    assert "ResizeStarted" in reasons
