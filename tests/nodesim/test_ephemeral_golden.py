"""Golden tests (no cluster, fake clock) of ephemeral containers (nodesim/ephemeral.py): one
added to a running pod, as `kubectl debug` adds it through pods/ephemeralcontainers, is
pulled, created and started like any container (kuberuntime_manager.go:1266-1274,1743-1749),
its events name `spec.ephemeralContainers{NAME}` (container/ref.go:68-74), its status is in
ephemeralContainerStatuses without `started` and never ready (prober_manager.go:332), it is
never restarted, and the pod's phase and readiness do not depend on it."""

from kubeproof.fidelity.golden import START, StaticWorld, pod_object
from kubeproof.nodesim import catalog as catalog_mod
from kubeproof.nodesim.pod import PodRuntime

IMAGES = {"docker.io/library/nginx:1.27"}  # busybox is not on the node: it is pulled
CATALOG = catalog_mod.shipped()


def _run_until(rt: PodRuntime, now: float, until: float) -> tuple[float, list]:
    world, events = StaticWorld(None), []
    while now < until:
        events += [(now, e) for e in rt.advance(now, world, CATALOG)]
        now = max(min(rt.next_at(), now + 1), now + 1e-3)
    return now, events


def _debugged(command: list[str]) -> tuple[PodRuntime, float, list]:
    rt = PodRuntime(
        pod_object({"containers": [{"name": "web", "image": "nginx:1.27"}]}), "10.244.1.2", IMAGES
    )
    now, _ = _run_until(rt, START, START + 10)
    assert rt.status(now, {})["phase"] == "Running"
    debugger = {
        "name": "debugger-x7k2p",
        "image": "busybox:1.36",
        **({"command": command} if command else {}),
        "targetContainerName": "web",
        "stdin": True,
        "tty": True,
        "terminationMessagePolicy": "File",
        "imagePullPolicy": "IfNotPresent",
    }
    rt.obj["spec"]["ephemeralContainers"] = [debugger]
    now, events = _run_until(rt, now, now + 20)
    return rt, now, events


def test_an_ephemeral_container_is_pulled_created_and_started():
    rt, now, events = _debugged(["sleep", "3600"])
    seen = [(e.reason, e.field_path) for _, e in events]
    where = "spec.ephemeralContainers{debugger-x7k2p}"
    assert [r for r, _ in seen] == ["Pulling", "Pulled", "Created", "Started"]
    assert {f for _, f in seen} == {where}
    status = rt.status(now, {})
    (entry,) = status["ephemeralContainerStatuses"]
    assert entry["name"] == "debugger-x7k2p" and "running" in entry["state"]
    assert entry["ready"] is False and "started" not in entry
    assert entry["containerID"].startswith("containerd://")
    # the pod's own readiness is its containers'
    ready = {c["type"]: c["status"] for c in status["conditions"]}
    assert ready["Ready"] == "True" and status["phase"] == "Running"


def test_an_ephemeral_container_that_exits_is_never_restarted():
    rt, now, _ = _debugged(["sh", "-c", "exit 3"])
    now, later = _run_until(rt, now, now + 120)
    (entry,) = rt.status(now, {})["ephemeralContainerStatuses"]
    assert entry["state"]["terminated"]["exitCode"] == 3
    assert entry["restartCount"] == 0
    assert not [e for _, e in later if e.reason in ("Started", "BackOff")]
    assert rt.status(now, {})["phase"] == "Running"


def test_a_shell_with_stdin_open_waits_on_it():
    # `kubectl debug -it POD --image=busybox:1.36`: no command, stdin and tty set; the
    # runtime keeps stdin open (CRI ContainerConfig stdin), so busybox's sh keeps running
    rt, now, _ = _debugged([])
    now, _ = _run_until(rt, now, now + 30)
    (entry,) = rt.status(now, {})["ephemeralContainerStatuses"]
    assert "running" in entry["state"]


def test_a_shell_without_stdin_exits_at_once():
    rt = PodRuntime(
        pod_object({"containers": [{"name": "sh", "image": "busybox:1.36"}]}),
        "10.244.1.2",
        {"docker.io/library/busybox:1.36"},
    )
    now, _ = _run_until(rt, START, START + 10)
    status = rt.status(now, {})["containerStatuses"][0]
    assert status["restartCount"] >= 1 or "terminated" in status["state"]
