"""Local ephemeral-storage eviction through stock kubectl on an embedded cluster (ground-truth
row 112): bytes written with `kubectl exec … dd` into a container's writable layer, and by the
container's own script into an emptyDir, get the pod evicted with the eviction manager's
wording (pkg/kubelet/eviction/eviction_manager.go:534-609, helpers.go:54-58): phase Failed,
reason Evicted, a Warning Evicted event and no DisruptionTarget condition."""

import pytest

from tests.conftest import wait_for
from tests.nodesim.conftest import events, get

pytestmark = pytest.mark.cluster

LIMITED = """
apiVersion: v1
kind: Pod
metadata: {name: limited}
spec:
  containers:
  - name: app
    image: busybox:1.36
    command: [sleep, "3600"]
    resources: {limits: {ephemeral-storage: 32Mi}}
"""
SIZED = """
apiVersion: v1
kind: Pod
metadata: {name: sized}
spec:
  containers:
  - name: app
    image: busybox:1.36
    command: [sh, -c, "dd if=/dev/zero of=/cache/fill bs=1M count=20; sleep 3600"]
    volumeMounts: [{name: cache, mountPath: /cache}]
  volumes:
  - {name: cache, emptyDir: {sizeLimit: 10Mi}}
"""


def _evicted(sim, name: str, ns: str):
    def check() -> dict | None:
        status = get(sim, "pod", name, ns)["status"]
        return status if status.get("reason") == "Evicted" else None

    return check


def test_kubectl_exec_dd_past_the_limit_evicts_the_pod(sim, ns):
    sim.kubectl("apply", "-n", ns, "-f", "-", input=LIMITED)
    running = lambda: get(sim, "pod", "limited", ns)["status"].get("phase") == "Running"  # noqa: E731
    wait_for(running, 60, what="limited running")
    done = sim.kubectl(
        "exec", "-n", ns, "limited", "--", "dd", "if=/dev/zero", "of=/tmp/fill", "bs=1M",
        "count=64",
    )  # fmt: skip
    # busybox dd's report (coreutils/dd.c), on stderr
    assert done.stderr.startswith("64+0 records in\n64+0 records out\n67108864 bytes (64.0MB)")
    # the next synchronize (every 10 s) sees it; a lone container's limit is the pod's total,
    # checked first (eviction_manager.go:506-532)
    status = wait_for(_evicted(sim, "limited", ns), 30, what="limited evicted")
    message = "Pod ephemeral local storage usage exceeds the total limit of containers 32Mi. "
    assert (status["phase"], status["message"]) == ("Failed", message)
    assert "DisruptionTarget" not in [c["type"] for c in status.get("conditions") or []]
    seen = [(e["type"], e["reason"], e["message"]) for e in events(sim, "limited", ns)]
    assert ("Warning", "Evicted", message) in seen
    assert ("Normal", "Killing", "Stopping container app") in seen


def test_an_emptydir_past_its_size_limit_is_evicted_once_measured(sim, ns):
    sim.kubectl("apply", "-n", ns, "-f", "-", input=SIZED)
    # the volume stats are measured at the analyzer's next run (every 60 s) and the next
    # synchronize acts on them: within 60 s + 10 s of the pod's start
    status = wait_for(_evicted(sim, "sized", ns), 100, interval=1, what="sized evicted")
    message = 'Usage of EmptyDir volume "cache" exceeds the limit "10Mi". '
    assert (status["phase"], status["message"]) == ("Failed", message)
    assert "DisruptionTarget" not in [c["type"] for c in status.get("conditions") or []]
    seen = [(e["type"], e["reason"], e["message"]) for e in events(sim, "sized", ns)]
    assert ("Warning", "Evicted", message) in seen
