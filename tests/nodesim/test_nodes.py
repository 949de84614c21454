"""Node maintenance and node failure, played out by the real controllers."""

import json

import pytest

from tests.conftest import wait_for
from tests.nodesim.conftest import apply, get

pytestmark = pytest.mark.cluster


def _pods(sim, ns, selector="app=web"):
    return json.loads(sim.kubectl("get", "pods", "-n", ns, "-l", selector, "-o", "json").stdout)[
        "items"
    ]


def _spread(sim, ns):
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
""",
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


def test_a_not_ready_node_has_its_pods_evicted(sim, ns):
    _spread(sim, ns)
    victim = next(p for p in _pods(sim, ns) if p["spec"]["nodeName"] == "node-1")
    try:
        sim.kubectl("annotate", "node", "node-1", "kubeproof.dev/simulate-ready=false")

        def tainted():
            taints = get(sim, "node", "node-1", "")["spec"].get("taints") or []
            return any(
                t["key"] == "node.kubernetes.io/not-ready" and t["effect"] == "NoExecute"
                for t in taints
            )

        wait_for(tainted, timeout=20, what="the not-ready NoExecute taint")
        conditions = get(sim, "node", "node-1", "")["status"]["conditions"]
        ready = next(c for c in conditions if c["type"] == "Ready")
        assert (ready["status"], ready["reason"]) == ("False", "KubeletNotReady")

        def evicted():
            names = {
                p["metadata"]["name"]
                for p in _pods(sim, ns)
                if "deletionTimestamp" not in p["metadata"]
            }
            return victim["metadata"]["name"] not in names

        # the default toleration of NotReady is 20 s on embedded clusters
        wait_for(evicted, timeout=60, interval=1, what="eviction from the NotReady node")
    finally:
        sim.kubectl("annotate", "node", "node-1", "kubeproof.dev/simulate-ready-")
        wait_for(
            lambda: (
                not [
                    t
                    for t in get(sim, "node", "node-1", "")["spec"].get("taints") or []
                    if t["key"].startswith("node.kubernetes.io/")
                ]
            ),
            timeout=30,
            what="node-1 healthy again",
        )


def test_memory_pressure_taints_the_node(sim):
    try:
        sim.kubectl("annotate", "node", "node-2", "kubeproof.dev/simulate-pressure=MemoryPressure")
        wait_for(
            lambda: any(
                t["key"] == "node.kubernetes.io/memory-pressure"
                for t in get(sim, "node", "node-2", "")["spec"].get("taints") or []
            ),
            timeout=20,
            what="the memory-pressure taint",
        )
    finally:
        sim.kubectl("annotate", "node", "node-2", "kubeproof.dev/simulate-pressure-")
        wait_for(
            lambda: (
                not [
                    t
                    for t in get(sim, "node", "node-2", "")["spec"].get("taints") or []
                    if t["key"].startswith("node.kubernetes.io/")
                ]
            ),
            timeout=30,
            what="node-2 healthy again",
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
        assert sorted(nodes) == ["gpu", "worker-1", "worker-2"]
        assert nodes["worker-1"]["metadata"]["labels"]["disktype"] == "ssd"
        assert nodes["gpu"]["metadata"]["labels"]["topology.kubernetes.io/zone"] == "zone-b"
        assert nodes["gpu"]["status"]["allocatable"]["nvidia.com/gpu"] == "2"
        assert nodes["gpu"]["status"]["allocatable"]["cpu"] == "7900m"
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
