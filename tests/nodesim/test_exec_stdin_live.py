"""`kubectl exec -i` and `kubectl cp` through stock kubectl on an embedded cluster: stdin goes
to the command over the v5.channel.k8s.io WebSocket (nodesim/execstream.py), and kubectl
cp's `test -d` / `tar` commands (staging kubectl pkg/cmd/cp/cp.go) run in a busybox script
container's real sandbox and in a modelled nginx container (nodesim/tarcmd.py)."""

import pytest

from tests.conftest import wait_for
from tests.nodesim.conftest import apply, get

pytestmark = pytest.mark.cluster

PODS = """
apiVersion: v1
kind: Pod
metadata: {name: real}
spec:
  containers:
  - {name: app, image: "busybox:1.36", command: [sh, -c, "echo up; sleep 3600"]}
---
apiVersion: v1
kind: Pod
metadata: {name: modelled}
spec:
  containers:
  - {name: web, image: "nginx:1.27"}
"""


def _running(sim, ns: str, pod: str) -> bool:
    statuses = get(sim, "pod", pod, ns)["status"].get("containerStatuses") or []
    return bool(statuses) and "running" in statuses[0].get("state", {})


@pytest.mark.parametrize("pod", ["real", "modelled"])
def test_exec_i_and_cp_both_ways(sim, ns, tmp_path, pod):
    if pod == "real" and not __import__("kubeproof.nodesim.runbox").nodesim.runbox.available():
        pytest.skip("needs busybox-static and bubblewrap")
    apply(sim, PODS, ns)
    wait_for(lambda: _running(sim, ns, pod), 60, what=f"{pod} running")
    # stdin reaches the command, which ends when kubectl closes it
    echoed = sim.kubectl("exec", "-i", "-n", ns, pod, "--", "cat", input="hi\nthere\n")
    assert echoed.stdout == "hi\nthere\n"
    # into the pod: `test -d /tmp` holds, so the file lands in /tmp under its own name
    local = tmp_path / "notes.txt"
    local.write_text("line one\nline two\n")
    sim.kubectl("cp", "-n", ns, str(local), f"{pod}:/tmp")
    inside = sim.kubectl("exec", "-n", ns, pod, "--", "cat", "/tmp/notes.txt").stdout
    assert inside == "line one\nline two\n"
    # and back out, with tar's notice about the leading '/' printed as on a real cluster
    back = tmp_path / "back.txt"
    out = sim.kubectl("cp", "-n", ns, f"{pod}:/tmp/notes.txt", str(back))
    assert back.read_text() == "line one\nline two\n"
    assert "from member names" in out.stdout
    # a path that is not there: tar's own error on kubectl's stdout (kubectl may still exit
    # 0: it stops once the empty archive ends, before the exec's status arrives)
    missing = sim.kubectl("cp", "-n", ns, f"{pod}:/tmp/none", str(tmp_path / "x"), check=False)
    assert "tar: /tmp/none: " in missing.stdout
    assert not (tmp_path / "x").exists()
