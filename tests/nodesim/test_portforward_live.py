"""`kubectl port-forward` through stock kubectl on an embedded cluster: kubectl tunnels SPDY
over a WebSocket to the apiserver, which opens SPDY to the simulated kubelet
(nodesim/portforward.py); a local connection gets the pod's HTTP model's answer, and a port
nothing listens on is the kubelet's `error forwarding port` as kubectl prints it."""

import socket
import subprocess
import time
import urllib.error
import urllib.request

import pytest

from kubeproof.cluster.base import kubectl_binary
from tests.conftest import wait_for
from tests.nodesim.conftest import apply, get

pytestmark = pytest.mark.cluster

WEB = """
apiVersion: v1
kind: Pod
metadata: {name: web, labels: {app: web}}
spec:
  containers:
  - {name: web, image: "nginx:1.27", ports: [{containerPort: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 8080, targetPort: 80}]
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _forward(
    sim, ns: str, target: str, remote: int, printed: int | None = None
) -> tuple[subprocess.Popen, int]:
    local = _free_port()
    cmd = [kubectl_binary(), f"--kubeconfig={sim.admin_kubeconfig}", "port-forward", "-n", ns]
    proc = subprocess.Popen(
        [*cmd, target, f"{local}:{remote}"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    line = proc.stdout.readline()  # type: ignore[union-attr]
    assert line.startswith(f"Forwarding from 127.0.0.1:{local} -> {printed or remote}\n"), line
    return proc, local


def _stop(proc: subprocess.Popen) -> tuple[str, str]:
    proc.terminate()
    return proc.communicate(timeout=10)


def _ready(sim, ns: str) -> bool:
    statuses = get(sim, "pod", "web", ns)["status"].get("containerStatuses") or []
    return bool(statuses) and statuses[0].get("ready") is True


@pytest.mark.parametrize("target", ["pod/web", "svc/web"])
def test_port_forward_reaches_the_pods_server(sim, ns, target):
    apply(sim, WEB, ns)
    wait_for(lambda: _ready(sim, ns), 60, what="web ready")
    remote = 80 if target == "pod/web" else 8080  # kubectl maps the Service port to 80
    proc, local = _forward(sim, ns, target, remote, printed=80)
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{local}/", timeout=20) as answer:
            assert answer.status == 200
            assert answer.read()
    finally:
        out, _ = _stop(proc)
    assert "Handling connection for" in out


def test_a_port_nothing_listens_on_gives_kubectls_error(sim, ns):
    apply(sim, WEB, ns)
    wait_for(lambda: _ready(sim, ns), 60, what="web ready")
    proc, local = _forward(sim, ns, "pod/web", 81)
    try:
        with pytest.raises((urllib.error.URLError, ConnectionError, OSError)):
            urllib.request.urlopen(f"http://127.0.0.1:{local}/", timeout=20)
        time.sleep(1)
    finally:
        _, err = _stop(proc)
    # portforward.go: "an error occurred forwarding %d -> %d: %v", the kubelet's message
    assert f"an error occurred forwarding {local} -> 81: error forwarding port 81 to pod " in err
    assert "connect: connection refused" in err
