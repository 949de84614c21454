"""Node maintenance and node failure, played out by the real controllers."""

import json
import time

import pytest

from tests.conftest import wait_for
from tests.nodesim.conftest import apply, get

pytestmark = pytest.mark.cluster


def _pods(sim, ns, selector="app=web"):
    return json.loads(sim.kubectl("get", "pods", "-n", ns, "-l", selector, "-o", "json").stdout)[
        "items"
    ]


# what a task sets when its pods must leave a bad node sooner than the default 300 s
FAST_FAILOVER = """
      tolerations:
      - {key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute,
         tolerationSeconds: 10}
      - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute,
         tolerationSeconds: 10}
"""


def _spread(sim, ns, tolerations=""):
    """Two replicas, one per node."""
    apply(
        sim,
        """
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      topologySpreadConstraints:
      - {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule,
         labelSelector: {matchLabels: {app: web}}}
      containers: [{name: nginx, image: nginx:1.27}]
"""
        + tolerations,
        ns,
    )
    sim.kubectl("rollout", "status", "deployment/web", "-n", ns, "--timeout=30s", timeout=40)


def test_drain_respects_a_pod_disruption_budget(sim, ns):
    _spread(sim, ns)
    apply(
        sim,
        """
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web}
spec: {minAvailable: 2, selector: {matchLabels: {app: web}}}
""",
        ns,
    )
    wait_for(lambda: get(sim, "pdb", "web", ns).get("status", {}).get("currentHealthy") == 2)
    try:
        blocked = sim.kubectl(
            "drain",
            "node-1",
            "--ignore-daemonsets",
            "--timeout=4s",
            "--pod-selector=app=web",
            check=False,
            timeout=30,
        )
        assert blocked.returncode != 0
        assert "would violate the pod's disruption budget" in blocked.stderr + blocked.stdout
        assert len(_pods(sim, ns)) == 2

        sim.kubectl(
            "patch", "pdb", "web", "-n", ns, "--type=merge", "-p", '{"spec":{"minAvailable":1}}'
        )
        wait_for(lambda: get(sim, "pdb", "web", ns)["status"].get("disruptionsAllowed") == 1)
        drained = sim.kubectl(
            "drain",
            "node-1",
            "--ignore-daemonsets",
            "--timeout=30s",
            "--pod-selector=app=web",
            timeout=60,
        )
        assert "drained" in drained.stdout
        wait_for(
            lambda: [
                p
                for p in _pods(sim, ns)
                if p["status"].get("phase") == "Running"
                and p["spec"].get("nodeName") == "node-2"
                and "deletionTimestamp" not in p["metadata"]
            ],
            what="the evicted replica running again on node-2",
        )
    finally:
        sim.kubectl("uncordon", "node-1")


def _node_events(sim, node):
    out = sim.kubectl(
        "get",
        "events",
        "-n",
        "default",
        "--field-selector",
        f"involvedObject.kind=Node,involvedObject.name={node},source=kubelet",
        "-o",
        "json",
    ).stdout
    items = json.loads(out)["items"]
    return sorted(items, key=lambda e: (e["firstTimestamp"], e["metadata"]["name"]))


def _wait_untainted(sim, node):
    def untainted():
        taints = get(sim, "node", node, "")["spec"].get("taints") or []
        return not [t for t in taints if t["key"].startswith("node.kubernetes.io/")]

    wait_for(untainted, timeout=30, what=f"{node} without condition taints")


def _condition(sim, node, kind):
    conditions = get(sim, "node", node, "")["status"]["conditions"]
    return next(c for c in conditions if c["type"] == kind)


def test_a_not_ready_node_has_its_pods_evicted(sim, ns):
    _spread(sim, ns, FAST_FAILOVER)
    victim = next(p for p in _pods(sim, ns) if p["spec"]["nodeName"] == "node-1")
    try:
        sim.kubectl("annotate", "node", "node-1", "kubeproof.dev/simulate-ready=false")

        def tainted():
            taints = get(sim, "node", "node-1", "")["spec"].get("taints") or []
            return any(
                t["key"] == "node.kubernetes.io/not-ready" and t["effect"] == "NoExecute"
                for t in taints
            )

        # noticed at the next 10 s status round, tainted at the next 5 s monitor pass
        wait_for(tainted, timeout=30, what="the not-ready NoExecute taint")
        ready = _condition(sim, "node-1", "Ready")
        # pkg/kubelet/nodestatus/setters.go:506-513, pkg/kubelet/runtime.go:127-128
        assert (ready["status"], ready["reason"], ready["message"]) == (
            "False",
            "KubeletNotReady",
            "container runtime is down",
        )
        # setters.go:544-545, pkg/kubelet/kubelet_node_status.go:640
        assert "Node node-1 status is now: NodeNotReady" in [
            e["message"] for e in _node_events(sim, "node-1") if e["reason"] == "NodeNotReady"
        ]

        def evicted():
            names = {
                p["metadata"]["name"]
                for p in _pods(sim, ns)
                if "deletionTimestamp" not in p["metadata"]
            }
            return victim["metadata"]["name"] not in names

        # the pods tolerate NotReady for 10 s (their own tolerationSeconds)
        wait_for(evicted, timeout=60, interval=1, what="eviction from the NotReady node")
    finally:
        sim.kubectl("annotate", "node", "node-1", "kubeproof.dev/simulate-ready-")
        _wait_untainted(sim, "node-1")


def test_a_started_node_shows_the_kubelets_events_allocatable_and_lease(sim):
    events = [(e["type"], e["reason"], e["message"]) for e in _node_events(sim, "node-2")]
    # pkg/kubelet/kubelet.go:3294; setters.go:606,730,668 on the initial node;
    # pkg/kubelet/cm/node_container_manager_linux.go:99
    assert events[:5] == [
        ("Normal", "Starting", "Starting kubelet."),
        ("Normal", "NodeHasSufficientMemory", "Node node-2 status is now: NodeHasSufficientMemory"),
        ("Normal", "NodeHasNoDiskPressure", "Node node-2 status is now: NodeHasNoDiskPressure"),
        ("Normal", "NodeHasSufficientPID", "Node node-2 status is now: NodeHasSufficientPID"),
        ("Normal", "NodeAllocatableEnforced", "Updated Node Allocatable limit across pods"),
    ]
    node = get(sim, "node", "node-2", "")
    # default capacity 4 CPU, 16Gi, 100Gi less the hard eviction reservation
    # (pkg/kubelet/cm/helpers.go:44-65, pkg/kubelet/eviction/defaults_linux.go:22-28)
    assert node["status"]["allocatable"] == {
        "cpu": "4",
        "memory": "16284Mi",
        "pods": "110",
        # the kubelet sends 96636764000 (BinarySI, not a multiple of 1024); the apiserver
        # parses it as DecimalSI and prints it canonically
        "ephemeral-storage": "96636764k",
    }
    # pkg/kubelet/apis/config/v1beta1/defaults.go:151-152
    lease = get(sim, "lease", "node-2", "kube-node-lease")
    assert lease["spec"]["leaseDurationSeconds"] == 40
    # transition times stay while nothing flips (setters.go:525-527); the Lease moves
    before = {c["type"]: c["lastTransitionTime"] for c in node["status"]["conditions"]}
    wait_for(
        lambda: (
            get(sim, "lease", "node-2", "kube-node-lease")["spec"]["renewTime"]
            != lease["spec"]["renewTime"]
        ),
        timeout=25,
        what="a Lease renewal",
    )
    after = get(sim, "node", "node-2", "")["status"]["conditions"]
    assert {c["type"]: c["lastTransitionTime"] for c in after} == before


def test_pods_get_the_upstream_default_tolerations(sim, ns):
    sim.kubectl("run", "plain", "-n", ns, "--image=busybox:1.36", "--", "sleep", "3600")
    tolerations = get(sim, "pod", "plain", ns)["spec"]["tolerations"]
    # plugin/pkg/admission/defaulttolerationseconds/admission.go:44-45
    assert {
        (t["key"], t["effect"], t.get("tolerationSeconds"))
        for t in tolerations
        if t["key"].startswith("node.kubernetes.io/")
    } == {
        ("node.kubernetes.io/not-ready", "NoExecute", 300),
        ("node.kubernetes.io/unreachable", "NoExecute", 300),
    }


def test_an_unreachable_node_goes_unknown_and_comes_back(sim, ns):
    sim.kubectl(
        "run", "stranded", "--image=busybox:1.36", "-n", ns, "--restart=Never",
        "--overrides", '{"spec": {"nodeName": "node-1", "terminationGracePeriodSeconds": 2}}',
        "--", "sleep", "3600",
    )  # fmt: skip
    wait_for(lambda: get(sim, "pod", "stranded", ns)["status"]["phase"] == "Running")
    renewed = get(sim, "lease", "node-1", "kube-node-lease")["spec"]["renewTime"]
    try:
        sim.kubectl("annotate", "node", "node-1", "kubeproof.dev/simulate-unreachable=true")

        def unknown():
            ready = _condition(sim, "node-1", "Ready")
            return ready if ready["status"] == "Unknown" else None

        # nodeMonitorGracePeriod 50 s after the last renewal, checked every 5 s
        ready = wait_for(unknown, timeout=90, interval=1, what="Ready Unknown")
        # pkg/controller/nodelifecycle/node_lifecycle_controller.go:942-953
        for kind in ("MemoryPressure", "DiskPressure", "PIDPressure", "Ready"):
            c = _condition(sim, "node-1", kind)
            assert (c["status"], c["reason"], c["message"]) == (
                "Unknown",
                "NodeStatusUnknown",
                "Kubelet stopped posting node status.",
            ), kind
        assert ready["lastTransitionTime"] >= renewed[:19]
        wait_for(
            lambda: any(
                t["key"] == "node.kubernetes.io/unreachable" and t["effect"] == "NoExecute"
                for t in get(sim, "node", "node-1", "")["spec"].get("taints") or []
            ),
            timeout=15,
            what="the unreachable NoExecute taint",
        )
        stopped = get(sim, "lease", "node-1", "kube-node-lease")["spec"]["renewTime"]
        assert stopped[:19] <= ready["lastTransitionTime"]
        # nobody answers for the node's pods: a deleted one stays Terminating (row 101)
        sim.kubectl("delete", "pod", "stranded", "-n", ns, "--wait=false")
        time.sleep(6)
        assert get(sim, "pod", "stranded", ns)["metadata"].get("deletionTimestamp")
    finally:
        sim.kubectl("annotate", "node", "node-1", "kubeproof.dev/simulate-unreachable-")
    wait_for(
        lambda: _condition(sim, "node-1", "Ready")["status"] == "True",
        timeout=30,
        what="node-1 Ready again",
    )
    # the setters see Unknown and record again (setters.go:542-543,603-606)
    reasons = [e["reason"] for e in _node_events(sim, "node-1")]
    assert "NodeReady" in reasons
    _wait_untainted(sim, "node-1")
    wait_for(
        lambda: sim.kubectl("get", "pod", "stranded", "-n", ns, check=False).returncode != 0,
        timeout=30,
        what="the stranded pod removed once its kubelet is back",
    )


def test_memory_pressure_wording_taint_and_hysteresis(binaries_built):
    """On a cluster of its own: the pressure outlives its signal by 5 minutes."""
    from kubeproof.cluster import EmbeddedCluster

    with EmbeddedCluster(nodes=1) as cluster:
        cluster.kubectl(
            "annotate", "node", "node-1", "kubeproof.dev/simulate-pressure=MemoryPressure"
        )
        wait_for(
            lambda: any(
                t["key"] == "node.kubernetes.io/memory-pressure"
                for t in get(cluster, "node", "node-1", "")["spec"].get("taints") or []
            ),
            timeout=30,
            what="the memory-pressure taint",
        )
        pressure = _condition(cluster, "node-1", "MemoryPressure")
        # pkg/kubelet/nodestatus/setters.go:596-600
        assert (pressure["status"], pressure["reason"], pressure["message"]) == (
            "True",
            "KubeletHasInsufficientMemory",
            "kubelet has insufficient memory available",
        )
        assert "Node node-1 status is now: NodeHasInsufficientMemory" in [
            e["message"] for e in _node_events(cluster, "node-1")
        ]
        cluster.kubectl("annotate", "node", "node-1", "kubeproof.dev/simulate-pressure-")
        # evictionPressureTransitionPeriod 5 min (v1beta1/defaults.go:237-238): two status
        # rounds later the condition is still True, its transition time unchanged
        time.sleep(25)
        held = _condition(cluster, "node-1", "MemoryPressure")
        assert (held["status"], held["lastTransitionTime"]) == (
            "True",
            pressure["lastTransitionTime"],
        )


def test_node_profile_sets_labels_taints_zones_and_extended_resources(binaries_built, tmp_path):
    from kubeproof.cluster import EmbeddedCluster
    from kubeproof.nodesim.profile import load

    path = tmp_path / "nodes.yaml"
    path.write_text("""
nodes:
  - {name: worker, count: 2, zone: zone-a, labels: {disktype: ssd}}
  - name: gpu
    zone: zone-b
    taints: [{key: nvidia.com/gpu, value: "true", effect: NoSchedule}]
    capacity: {cpu: "8", memory: 32Gi, nvidia.com/gpu: "2"}
""")
    with EmbeddedCluster(nodes=load(path)) as cluster:
        nodes = {
            n["metadata"]["name"]: n
            for n in json.loads(cluster.kubectl("get", "nodes", "-o", "json").stdout)["items"]
        }
        assert sorted(nodes) == ["control-plane", "gpu", "worker-1", "worker-2"]
        assert nodes["worker-1"]["metadata"]["labels"]["disktype"] == "ssd"
        assert nodes["gpu"]["metadata"]["labels"]["topology.kubernetes.io/zone"] == "zone-b"
        assert nodes["gpu"]["status"]["allocatable"]["nvidia.com/gpu"] == "2"
        assert nodes["gpu"]["status"]["allocatable"]["cpu"] == "8"  # no CPU reserved
        assert nodes["gpu"]["status"]["allocatable"]["memory"] == "32668Mi"  # 32Gi - 100Mi
        assert {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"} in (
            nodes["gpu"]["spec"]["taints"]
        )
        cluster.kubectl(
            "apply",
            "-f",
            "-",
            input="""
apiVersion: v1
kind: Pod
metadata: {name: train, namespace: default}
spec:
  tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
  containers:
  - name: c
    image: busybox:1.36
    command: [sleep, infinity]
    resources: {limits: {nvidia.com/gpu: "1"}}
""",
        )
        wait_for(
            lambda: get(cluster, "pod", "train", "default")["spec"].get("nodeName") == "gpu",
            what="the GPU pod on the GPU node",
        )


def test_bad_node_profile_names_the_file_and_field(tmp_path):
    from kubeproof.errors import KubeproofError
    from kubeproof.nodesim.profile import load

    path = tmp_path / "nodes.yaml"
    path.write_text("nodes:\n  - {name: w, count: 0}\n")
    with pytest.raises(KubeproofError, match=r"nodes\.yaml: nodes\.0\.count"):
        load(path)
