"""Node-pressure eviction through stock kubectl on an embedded cluster (ground-truth rows
107-110): a 1Gi node whose pods' modelled working sets leave less than memory.available<100Mi
(pkg/kubelet/eviction/defaults_linux.go:22-28). The pod using most above its request is
evicted with evictionMessage's text (helpers.go:1240-1303), the node reports MemoryPressure
and EvictionThresholdMet (eviction_manager.go:384), and the ReplicaSet replaces the Failed
pod, which stays."""

import json

import pytest

from tests.conftest import wait_for
from tests.nodesim.conftest import events, get

pytestmark = pytest.mark.cluster

QUIET = """
apiVersion: v1
kind: Pod
metadata: {name: quiet}
spec:
  containers:
  - {name: app, image: nginx:1.27, resources: {requests: {memory: 64Mi}}}
"""
# the pod's working set is set by the metrics annotation (nodesim/metrics.py)
HOG = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: hog}
spec:
  replicas: 1
  selector: {matchLabels: {app: hog}}
  template:
    metadata:
      labels: {app: hog}
      annotations: {kubeproof.dev/memory-usage: 650Mi}
    spec:
      containers:
      - {name: app, image: busybox:1.36, command: [sleep, "3600"],
         resources: {requests: {memory: 64Mi}}}
"""


@pytest.fixture(scope="module")
def small(binaries_built, tmp_path_factory):
    from kubeproof.cluster import EmbeddedCluster
    from kubeproof.nodesim.profile import load

    path = tmp_path_factory.mktemp("profile") / "nodes.yaml"
    # no control-plane node: CoreDNS (which tolerates its taint) must land on `small`, so the
    # node's working set is known
    path.write_text(
        "control_plane: false\n"
        'nodes:\n  - {name: small, capacity: {cpu: "4", memory: 1Gi, pods: "110"}}\n'
    )
    with EmbeddedCluster(nodes=load(path)) as cluster:
        yield cluster


def _pods(cluster, selector: str) -> list[dict]:
    out = cluster.kubectl("get", "pods", "-n", "default", "-l", selector, "-o", "json").stdout
    return json.loads(out)["items"]


def _running(cluster, ns: str, selector: str) -> bool:
    out = cluster.kubectl("get", "pods", "-n", ns, "-l", selector, "-o", "json").stdout
    items = json.loads(out)["items"]
    return bool(items) and all(p["status"].get("phase") == "Running" for p in items)


def test_the_pod_most_over_its_request_is_evicted_and_the_node_reports_pressure(small):
    # CoreDNS (2 x 16Mi, system-cluster-critical: never evicted), kube-proxy (22Mi,
    # system-node-critical) and `quiet` (12Mi under its 64Mi request) run first, so the node's
    # working set is known: 300Mi system + 32Mi + 22Mi + 12Mi
    wait_for(lambda: _running(small, "kube-system", "k8s-app=kube-dns"), 90, what="CoreDNS")
    small.kubectl("apply", "-n", "default", "-f", "-", input=QUIET)
    quiet = lambda: get(small, "pod", "quiet", "default")["status"].get("phase") == "Running"  # noqa: E731
    wait_for(quiet, 60, what="quiet running")
    small.kubectl("apply", "-n", "default", "-f", "-", input=HOG)

    def evicted() -> dict | None:
        found = [p for p in _pods(small, "app=hog") if p["status"].get("reason") == "Evicted"]
        return found[0] if found else None

    pod = wait_for(evicted, 60, what="hog evicted")
    status = pod["status"]
    # available = 1Gi - (300Mi + 32Mi + 22Mi + 12Mi + 650Mi) = 8Mi
    message = (
        "The node was low on resource: memory. Threshold quantity: 100Mi, available: 8Mi. "
        "Container app was using 650Mi, request is 64Mi, has larger consumption of memory. "
    )
    assert (status["phase"], status["message"]) == ("Failed", message)
    target = next(c for c in status["conditions"] if c["type"] == "DisruptionTarget")
    assert (target["status"], target["reason"], target["message"]) == (
        "True",
        "TerminationByKubelet",
        message,
    )
    name = pod["metadata"]["name"]
    seen = [(e["type"], e["reason"], e["message"]) for e in events(small, name, "default")]
    assert ("Warning", "Evicted", message) in seen
    assert ("Normal", "Killing", "Stopping container app") in seen
    # the ranking spares the pod within its request, and the critical CoreDNS pods
    assert get(small, "pod", "quiet", "default")["status"]["phase"] == "Running"
    assert _running(small, "kube-system", "k8s-app=kube-dns")

    def pressure() -> dict | None:
        node = get(small, "node", "small", "")
        found = [c for c in node["status"]["conditions"] if c["type"] == "MemoryPressure"]
        return found[0] if found and found[0]["status"] == "True" else None

    condition = wait_for(pressure, 30, what="MemoryPressure")
    assert condition["reason"] == "KubeletHasInsufficientMemory"
    node_events = json.loads(
        small.kubectl(
            "get", "events", "-n", "default", "--field-selector",
            "involvedObject.kind=Node,involvedObject.name=small", "-o", "json",
        ).stdout
    )["items"]  # fmt: skip
    reasons = {(e["type"], e["reason"], e["message"]) for e in node_events}
    assert ("Warning", "EvictionThresholdMet", "Attempting to reclaim memory") in reasons
    # the evicted pod is kept; its ReplicaSet creates a replacement
    wait_for(lambda: len(_pods(small, "app=hog")) >= 2, 60, what="a replacement hog pod")
    assert get(small, "pod", name, "default")["status"]["reason"] == "Evicted"
    # the printer starts from status.reason but a terminated container's reason wins
    # (pkg/printers/internalversion/printers.go:935,1033-1034): `sleep` ignored SIGTERM and
    # was killed when the 2 s grace ended, so kubectl shows Error
    # once the container is gone (the replacement may come first)
    printed = lambda: " Error " in small.kubectl("get", "pod", name, "-n", "default").stdout  # noqa: E731
    wait_for(printed, 30, what="kubectl showing Error")
