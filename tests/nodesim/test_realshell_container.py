"""A busybox script pod driven by the simulated kubelet's pod worker with a Runner (the live
path of nodesim/realshell.py) on the real clock — no cluster: the script's exit code becomes
the terminated state, its exec probe decides readiness, a restart gets a fresh layer."""

import time
import types

import pytest

from kubeproof.fidelity.golden import StaticWorld, pod_object
from kubeproof.nodesim import catalog, runbox
from kubeproof.nodesim.pod import PodRuntime
from kubeproof.nodesim.realshell import Runner
from kubeproof.nodesim.timing import REAL

pytestmark = pytest.mark.skipif(
    not runbox.available(), reason="needs busybox-static and bubblewrap"
)


def _drive(spec: dict, tmp_path, seconds: float, until=None) -> tuple[PodRuntime, list]:
    """Advance the pod at its due times (at least every 0.2 s) for `seconds` or until
    `until(status)`; (runtime, events as (reason, message))."""
    world = StaticWorld()
    world.runner = Runner(tmp_path / "containers")
    pod = pod_object(spec)
    runtime = PodRuntime(pod, "10.244.1.2", set(), REAL)
    events, end = [], time.time() + seconds
    try:
        while time.time() < end:
            now = time.time()
            events += [(e.reason, e.message) for e in runtime.advance(now, world, CATALOG)]
            status = runtime.status(now, pod.get("status") or {})
            if until is not None and until(status):
                break
            time.sleep(max(0.0, min(runtime.next_at() - time.time(), 0.2)))
    finally:
        runtime.kill(time.time(), CATALOG)
        for container in runtime.app:
            if container.live is not None:
                container.live.kill()
                container.live.wait(5)
    return runtime, events


CATALOG = catalog.shipped()


def _app(status: dict) -> dict:
    return (status.get("containerStatuses") or [{}])[0]


def test_the_scripts_exit_code_is_the_terminated_state(tmp_path):
    # kuberuntime_container.go:758-763, kubelet_pods.go:2361-2368
    spec = {
        "restartPolicy": "Never",
        "containers": [
            {
                "name": "app",
                "image": "busybox:1.36",
                "env": [{"name": "WHO", "value": "world"}],
                "command": ["sh", "-c", 'for i in 1 2; do echo "hi ${WHO} $i"; done; exit 3'],
            }
        ],
    }
    runtime, _ = _drive(spec, tmp_path, 30, lambda s: "terminated" in _app(s).get("state", {}))
    terminated = _app(runtime.status(time.time(), {}))["state"]["terminated"]
    assert (terminated["exitCode"], terminated["reason"]) == (3, "Error")
    assert [line for _, line in runtime.app[0].logs] == ["hi world 1", "hi world 2"]


def test_a_script_reads_its_cgroup_limits_as_the_runtime_set_them(tmp_path):
    # helpers_linux.go MilliCPUToQuota: 10m -> quota 1000 of period 100000; no limit: max
    # (infra-bench stabilize-cpu-throttled-worker reads cpu.max to decide its health)
    spec = {
        "restartPolicy": "Never",
        "containers": [
            {
                "name": "app",
                "image": "busybox:1.36",
                "resources": {"limits": {"cpu": "10m", "memory": "128Mi"}},
                "command": ["sh", "-c", "cat /sys/fs/cgroup/cpu.max /sys/fs/cgroup/memory.max"],
            }
        ],
    }
    runtime, _ = _drive(spec, tmp_path, 30, lambda s: "terminated" in _app(s).get("state", {}))
    assert [line for _, line in runtime.app[0].logs] == ["1000 100000", "134217728"]


def test_an_exec_probe_passes_once_the_script_made_its_file(tmp_path):
    # pkg/probe/exec/exec.go:50-76: the command's exit status decides
    spec = {
        "containers": [
            {
                "name": "app",
                "image": "busybox:1.36",
                "command": ["sh", "-c", "sleep 3; touch /tmp/ready; sleep 60"],
                "readinessProbe": {
                    "exec": {"command": ["test", "-f", "/tmp/ready"]},
                    "periodSeconds": 1,
                },
            }
        ]
    }
    started = time.time()
    runtime, events = _drive(spec, tmp_path, 30, lambda s: _app(s).get("ready"))
    assert _app(runtime.status(time.time(), {}))["ready"] is True
    assert time.time() - started >= 3  # not before the script touched it
    assert ("Unhealthy", "Readiness probe failed: ") in events  # `test` prints nothing


def test_an_exec_probe_is_cut_after_its_timeout(tmp_path):
    # cri-client pkg/remote_runtime.go:638-641 through exec.go:66-68
    spec = {
        "containers": [
            {
                "name": "app",
                "image": "busybox:1.36",
                "command": ["sh", "-c", "sleep 60"],
                "readinessProbe": {
                    "exec": {"command": ["sleep", "5"]},
                    "periodSeconds": 2,
                    "timeoutSeconds": 1,
                },
            }
        ]
    }
    started = time.time()
    runtime, events = _drive(spec, tmp_path, 6)
    assert (
        "Unhealthy",
        'Readiness probe failed: command timed out: "sleep 5" timed out after 1s',
    ) in events
    assert _app(runtime.status(time.time(), {}))["ready"] is False
    assert time.time() - started < 15  # each probe waited its 1 s, not the command's 5 s


def test_a_slow_exec_probe_runs_beside_the_nodes_loop_and_wakes_the_pod_when_it_ends(tmp_path):
    # the prober's worker is a goroutine per probe (pkg/kubelet/prober/worker.go run): a
    # command that takes 2 s holds that worker, not the node. Before, advance() waited
    # for it, and with it every other pod's sync and the kubelet's HTTP server.
    spec = {
        "containers": [
            {
                "name": "app",
                "image": "busybox:1.36",
                "command": ["sh", "-c", "sleep 600"],
                "readinessProbe": {
                    "exec": {"command": ["sh", "-c", "sleep 2; exit 4"]},
                    "periodSeconds": 10,
                    "timeoutSeconds": 5,
                },
            }
        ]
    }
    woken = []
    world = StaticWorld()
    world.runner = Runner(tmp_path / "containers", wake=woken.append)
    runtime = PodRuntime(pod_object(spec), "10.244.1.2", set(), REAL)
    events, longest, end = [], 0.0, time.time() + 30
    try:
        while time.time() < end and not events:
            began = time.time()
            advanced = runtime.advance(began, world, CATALOG)
            events += [(e.reason, e.message) for e in advanced if e.reason == "Unhealthy"]
            longest = max(longest, time.time() - began)
            time.sleep(0.05)
        running = runtime.app[0].probe_state["readinessProbe"]
        assert events == [("Unhealthy", "Readiness probe failed: ")]
        assert longest < 1.0  # no sync waited the probe's 2 s
        assert woken and set(woken) == {runtime.uid}  # its end woke the pod
        assert "running" not in running and running["fail"] == 1
        assert runtime.app[0].ready is False
    finally:
        world.runner.forget(runtime.uid)


def test_every_exec_probe_in_flight_has_its_own_worker_as_the_kubelets_goroutines(tmp_path):
    # pkg/kubelet/prober/worker.go: a goroutine per container and probe, no shared pool. Ten
    # probes that each wait until all ten have started only end if all ten run at once; a
    # pool of eight would hold two back and the eight would time out ("timed out" errors).
    count = 10
    barrier = (
        "touch /meet/$HOSTNAME-$C; "
        f'while [ "$(ls /meet | wc -l)" -lt {count} ]; do sleep 0.1; done; exit 4'
    )
    spec = {
        "containers": [
            {
                "name": f"c{i}",
                "image": "busybox:1.36",
                "command": ["sh", "-c", "sleep 600"],
                "env": [{"name": "C", "value": str(i)}],
                "volumeMounts": [{"name": "meet", "mountPath": "/meet"}],
                "readinessProbe": {
                    "exec": {"command": ["sh", "-c", barrier]},
                    "periodSeconds": 60,
                    "timeoutSeconds": 30,
                },
            }
            for i in range(count)
        ],
        "volumes": [{"name": "meet", "emptyDir": {}}],
    }
    world = StaticWorld()
    world.runner = Runner(tmp_path / "containers")
    runtime = PodRuntime(pod_object(spec), "10.244.1.2", set(), REAL)
    events, end = [], time.time() + 60
    try:
        while time.time() < end and len(events) < count:
            advanced = runtime.advance(time.time(), world, CATALOG)
            events += [(e.reason, e.message) for e in advanced if e.reason == "Unhealthy"]
            time.sleep(0.05)
        assert events == [("Unhealthy", "Readiness probe failed: ")] * count
    finally:
        world.runner.forget(runtime.uid)


def test_a_probe_thread_that_cannot_start_is_the_probes_runtime_error(tmp_path, monkeypatch):
    # an agent's pods can hold many probes at once; a host out of threads fails that probe
    # as the kubelet reports a runtime error (prober.go:104-108), never the pod's sync
    from kubeproof.nodesim import execprobe

    class NoThreads:
        def __init__(self, **_):
            pass

        def start(self):
            raise RuntimeError("can't start new thread")

    # execprobe's own view of the module: the Runner's threads are left as they are
    monkeypatch.setattr(execprobe, "threading", types.SimpleNamespace(Thread=NoThreads))
    spec = {
        "containers": [
            {
                "name": "app",
                "image": "busybox:1.36",
                "command": ["sh", "-c", "sleep 600"],
                "readinessProbe": {"exec": {"command": ["true"]}, "periodSeconds": 10},
            }
        ]
    }
    world = StaticWorld()
    world.runner = Runner(tmp_path / "containers")
    runtime = PodRuntime(pod_object(spec), "10.244.1.2", set(), REAL)
    events, end = [], time.time() + 30
    try:
        while time.time() < end and not events:
            advanced = runtime.advance(time.time(), world, CATALOG)
            events += [(e.reason, e.message) for e in advanced if e.reason == "Unhealthy"]
            time.sleep(0.05)
        assert events == [
            (
                "Unhealthy",
                "Readiness probe errored and resulted in unknown state: can't start new thread",
            )
        ]
        assert runtime.app[0].ready is False
    finally:
        world.runner.forget(runtime.uid)


def test_forgetting_a_pod_kills_its_scripts_and_removes_its_directories(tmp_path):
    # a force-deleted pod (grace 0) is forgotten without a stop: nothing of it may remain
    world = StaticWorld()
    world.runner = Runner(tmp_path / "containers")
    spec = {
        "containers": [
            {"name": "app", "image": "busybox:1.36", "command": ["sh", "-c", "sleep 600"]}
        ]
    }
    pod = pod_object(spec)
    runtime = PodRuntime(pod, "10.244.1.2", set(), REAL)
    end = time.time() + 20
    while runtime.app[0].live is None and time.time() < end:
        runtime.advance(time.time(), world, CATALOG)
        time.sleep(0.1)
    live = runtime.app[0].live
    assert live is not None and live.alive
    world.runner.forget(runtime.uid)
    assert not live.alive and live.exit_code == 137
    assert not (tmp_path / "containers" / runtime.uid).exists()


def _started(spec: dict, tmp_path) -> tuple[PodRuntime, Runner]:
    world = StaticWorld()
    world.runner = Runner(tmp_path / "containers")
    runtime = PodRuntime(pod_object(spec), "10.244.1.2", set(), REAL)
    end = time.time() + 20
    while runtime.app[0].stage not in ("running", "exited") and time.time() < end:
        runtime.advance(time.time(), world, CATALOG)
        time.sleep(0.1)
    return runtime, world.runner


def test_an_emptydir_is_one_host_directory_per_pod_and_volume(tmp_path):
    spec = {
        "containers": [
            {
                "name": "app",
                "image": "busybox:1.36",
                "command": ["sh", "-c", "echo kept > /cache/out; sleep 600"],
                "volumeMounts": [{"name": "cache", "mountPath": "/cache"}],
            }
        ],
        "volumes": [{"name": "cache", "emptyDir": {}}],
    }
    runtime, runner = _started(spec, tmp_path)
    out = tmp_path / "containers" / runtime.uid / "volumes" / "cache" / "out"
    try:
        end = time.time() + 10
        while not out.exists() and time.time() < end:
            time.sleep(0.1)
        assert out.read_text() == "kept\n"
    finally:
        runner.forget(runtime.uid)


def test_a_subpath_into_an_emptydir_is_not_run_for_real(tmp_path):
    # the containers make what is under it, symlinks too: a root bind by path would follow
    spec = {
        "containers": [
            {
                "name": "app",
                "image": "busybox:1.36",
                "command": ["sh", "-c", "sleep 600"],
                "volumeMounts": [{"name": "cache", "mountPath": "/cache", "subPath": "x"}],
            }
        ],
        "volumes": [{"name": "cache", "emptyDir": {}}],
    }
    runtime, runner = _started(spec, tmp_path)
    try:
        assert runtime.app[0].stage == "running" and runtime.app[0].live is None
    finally:
        runner.forget(runtime.uid)


def test_an_exec_probe_running_wget_is_answered_on_the_loop_not_in_the_sandbox(tmp_path):
    # infra-bench fix-restricted-security-context: `wget -q -O /dev/null
    # http://127.0.0.1:8080/ready` as an exec probe. The probe runs on the node's loop; in
    # the sandbox its wget (netbridge.py) would wait for that same loop and time out after
    # the probe's 1 s, every time. With the node's netsim (world.exec_network, as `kubectl
    # exec` has it) the probe gets the page the script's httpd serves from its own layer.
    from kubeproof.nodesim import pages, shell

    asked = []

    def exec_network(runtime):
        container = runtime.app[0]

        def get(url, host):
            asked.append(url)
            page = pages.served(container, container.model, CATALOG.servers, 8080, "/ready")
            return None, page.status, page.body, page.reason

        return shell.Net(lambda where: None, lambda name: ("ok", ["10.244.1.2"]), get)

    script = (
        "mkdir -p /tmp/www; sleep 2; echo ok > /tmp/www/ready; exec httpd -f -p 8080 -h /tmp/www"
    )
    spec = {
        "containers": [
            {
                "name": "app",
                "image": "busybox:1.36",
                "command": ["sh", "-c", script],
                "readinessProbe": {
                    "exec": {
                        "command": ["wget", "-q", "-O", "/dev/null", "http://127.0.0.1:8080/ready"]
                    },
                    "periodSeconds": 1,
                },
            }
        ],
    }
    world = StaticWorld()
    world.runner = Runner(tmp_path / "containers")
    world.exec_network = exec_network
    pod = pod_object(spec)
    runtime = PodRuntime(pod, "10.244.1.2", set(), REAL)
    events, end, ready = [], time.time() + 30, False
    try:
        while time.time() < end and not ready:
            now = time.time()
            events += [e.message for e in runtime.advance(now, world, CATALOG)]
            ready = _app(runtime.status(now, pod.get("status") or {})).get("ready") is True
            time.sleep(0.2)
    finally:
        runtime.kill(time.time(), CATALOG)
        runtime.app[0].live.kill()
        runtime.app[0].live.wait(5)
    assert ready, events
    assert asked and all(url == "http://127.0.0.1:8080/ready" for url in asked)
    assert not [m for m in events if "timed out" in m]
