"""`kubectl debug` (ephemeral containers, a node debugging pod) and `kubectl attach` through
stock kubectl on an embedded cluster: the ephemeral container goes through the kubelet's
Pulling/Pulled/Created/Started and shows in status.ephemeralContainerStatuses
(nodesim/ephemeral.py); attach streams what the container writes (nodesim/server.py)."""

import subprocess
import time

import pytest

from kubeproof.cluster.base import kubectl_binary
from tests.conftest import wait_for
from tests.nodesim.conftest import apply, events, get

pytestmark = pytest.mark.cluster

POD = """
apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers:
  - {name: web, image: "nginx:1.27"}
"""


def _ephemeral(sim, ns: str, name: str) -> dict:
    statuses = get(sim, "pod", "web", ns)["status"].get("ephemeralContainerStatuses") or []
    return next((s for s in statuses if s["name"] == name), {})


def _running(sim, ns: str) -> bool:
    statuses = get(sim, "pod", "web", ns)["status"].get("containerStatuses") or []
    return bool(statuses) and "running" in statuses[0]["state"]


def test_kubectl_debug_starts_an_ephemeral_container(sim, ns):
    apply(sim, POD, ns)
    wait_for(lambda: _running(sim, ns), 60, what="web running")
    sim.kubectl(
        "debug", "-n", ns, "web", "--image=busybox:1.36", "-c", "dbg", "--", "sleep", "3600"
    )
    entry = wait_for(
        lambda: (e := _ephemeral(sim, ns, "dbg")) and "running" in e["state"] and e,
        60,
        what="dbg running",
    )
    assert entry["ready"] is False and "started" not in entry
    where = "spec.ephemeralContainers{dbg}"
    reasons = [
        e["reason"] for e in events(sim, "web", ns) if e["involvedObject"].get("fieldPath") == where
    ]
    assert {"Created", "Started"} <= set(reasons)
    # the pod is as Ready as before: an ephemeral container does not count
    assert get(sim, "pod", "web", ns)["status"]["phase"] == "Running"


def test_kubectl_debug_it_shows_the_commands_output(sim, ns):
    apply(sim, POD, ns)
    wait_for(lambda: _running(sim, ns), 60, what="web running")
    out = sim.kubectl(
        "debug",
        "-n",
        ns,
        "web",
        "-i",
        "--image=busybox:1.36",
        "--target=web",
        "-c",
        "hi",
        "--",
        "sh",
        "-c",
        "echo hello",
        input="",
        timeout=120,
    )
    assert "hello" in out.stdout
    entry = wait_for(lambda: _ephemeral(sim, ns, "hi").get("state", {}).get("terminated"), 60)
    assert entry["exitCode"] == 0 and entry["reason"] == "Completed"


def test_kubectl_attach_streams_what_the_container_writes(sim, ns):
    apply(sim, POD, ns)
    wait_for(lambda: _running(sim, ns), 60, what="web running")
    loop = "i=0; while true; do i=$((i+1)); echo tick $i; sleep 1; done"
    sim.kubectl(
        "debug", "-n", ns, "web", "--image=busybox:1.36", "-c", "ticker", "--", "sh", "-c", loop
    )
    wait_for(lambda: "running" in _ephemeral(sim, ns, "ticker").get("state", {}), 60)
    cmd = [
        kubectl_binary(),
        f"--kubeconfig={sim.admin_kubeconfig}",
        "attach",
        "-n",
        ns,
        "web",
        "-c",
        "ticker",
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(5)
    proc.terminate()
    out, _ = proc.communicate(timeout=10)
    ticks = [line for line in out.splitlines() if line.startswith("tick ")]
    assert ticks, out
    # only what was written after the attach: not the container's first line
    assert "tick 1" not in ticks


def test_kubectl_debug_node_runs_a_pod_on_that_node(sim, ns):
    # kubectl names the node itself (staging kubectl pkg/cmd/debug/debug.go:721-745): no
    # scheduling; the legacy profile mounts the host's / at /host with hostPID/hostNetwork
    node = sim.kubectl("get", "nodes", "-o", "jsonpath={.items[-1].metadata.name}").stdout
    out = sim.kubectl(
        "debug", "-n", ns, f"node/{node}", "--image=busybox:1.36", "--", "sleep", "3600"
    ).stdout
    assert f"on node {node}." in out
    pod = out.split("Creating debugging pod ", 1)[1].split(" ", 1)[0]
    assert pod.startswith(f"node-debugger-{node}-")
    state = wait_for(
        lambda: (s := get(sim, "pod", pod, ns)["status"]).get("phase") == "Running" and s,
        60,
        what=f"{pod} running",
    )
    assert state["hostIP"] == state["podIP"]  # hostNetwork: the node's address
    assert get(sim, "pod", pod, ns)["spec"]["nodeName"] == node


def test_kubectl_run_i_rm_prints_the_output_and_deletes_the_pod(sim, ns):
    # kubectl run -i attaches (or reads the logs of a container that already finished,
    # staging kubectl pkg/cmd/run/run.go), then --rm deletes the pod
    out = sim.kubectl(
        "run",
        "-n",
        ns,
        "once",
        "--rm",
        "-i",
        "--restart=Never",
        "--image=busybox:1.36",
        "--",
        "sh",
        "-c",
        "echo from-the-pod",
        input="",
        timeout=120,
    )
    assert "from-the-pod" in out.stdout
    assert 'pod "once" deleted' in out.stdout + out.stderr


def test_kubectl_run_i_feeds_a_piped_script_to_the_shell(sim, ns):
    # kubectl run -i sets stdin and stdinOnce (staging kubectl pkg/generate/versioned/
    # run.go:338): sh reads the piped lines through the attach, exits at EOF, and --rm
    # deletes the pod (interactive.py)
    out = sim.kubectl(
        "run",
        "-n",
        ns,
        "piped",
        "--rm",
        "-i",
        "--restart=Never",
        "--image=busybox:1.36",
        "--",
        "sh",
        input="echo first-line\necho second-line\n",
        timeout=120,
    )
    assert "first-line" in out.stdout and "second-line" in out.stdout
    assert 'pod "piped" deleted' in out.stdout + out.stderr
