"""Agent commands run in bubblewrap and see only the agent's kubeconfig."""

import os
import time

import pytest

from kubeproof.agents.sandbox import OUTPUT_LIMIT, Sandbox
from kubeproof.cluster.base import kubectl_binary
from kubeproof.cluster.kubeconfig import write_token_kubeconfig

pytestmark = pytest.mark.cluster


@pytest.fixture(scope="module")
def sandbox(cluster, tmp_path_factory):
    cluster.kubectl("create", "namespace", "agent-ns")
    cluster.kubectl("create", "serviceaccount", "agent", "-n", "agent-ns")
    cluster.kubectl("create", "configmap", "settings", "--from-literal=mode=live", "-n", "agent-ns")
    cluster.kubectl(
        "create", "role", "reader", "--verb=get,list", "--resource=configmaps", "-n", "agent-ns"
    )
    cluster.kubectl(
        "create",
        "rolebinding",
        "agent",
        "--role=reader",
        "--serviceaccount=agent-ns:agent",
        "-n",
        "agent-ns",
    )
    token = cluster.kubectl("create", "token", "agent", "-n", "agent-ns").stdout.strip()
    trial = tmp_path_factory.mktemp("trial")
    kubeconfig = write_token_kubeconfig(
        trial / "agent.kubeconfig",
        cluster=cluster.name,
        server=cluster.server,
        ca_pem=cluster.layout.cert("ca").read_bytes(),
        user="agent",
        token=token,
        namespace="agent-ns",
    )
    (trial / "baseline.json").write_text('{"secret": "baseline"}')
    return Sandbox(kubeconfig, trial / "scratch", kubectl_binary(), timeout=20)


def test_kubectl_works_with_the_agents_own_permissions(sandbox):
    allowed = sandbox.run("kubectl get configmaps -o name")
    assert allowed.exit_code == 0, allowed.stderr
    assert "configmap/settings" in allowed.stdout
    denied = sandbox.run("kubectl get secrets")
    assert denied.exit_code == 1
    assert 'User "system:serviceaccount:agent-ns:agent" cannot list resource "secrets"' in (
        denied.stderr
    )


def test_admin_credentials_state_and_trial_files_are_invisible(sandbox, cluster):
    admin = cluster.admin_kubeconfig
    for path in (
        admin,
        cluster.layout.cert("ca").with_name("ca.key"),
        sandbox.kubeconfig.parent / "baseline.json",
        os.path.expanduser("~"),
    ):
        result = sandbox.run(f"cat {path} || ls {path}")
        assert result.exit_code != 0, f"{path} is visible: {result.stdout[:200]}"
    admin_use = sandbox.run(f"kubectl --kubeconfig {admin} get namespaces")
    assert admin_use.exit_code != 0
    env = sandbox.run("env").stdout
    assert "KUBECONFIG=/home/agent/.kube/config" in env
    assert "KUBEPROOF" not in env and "client-key-data" not in env
    assert (
        cluster.layout.cert("admin").read_text()[:60]
        not in sandbox.run("cat ~/.kube/config").stdout
    )


def test_scratch_persists_between_commands_and_is_private(sandbox):
    assert sandbox.run("echo draft > notes.txt").exit_code == 0
    assert sandbox.run("cat notes.txt").stdout == "draft\n"
    assert sandbox.run("ls /tmp").stdout == ""


def test_a_command_past_its_time_limit_is_killed(sandbox):
    started = time.monotonic()
    result = sandbox.run("sleep 30", timeout=1)
    assert result.timed_out and result.exit_code == 124
    assert time.monotonic() - started < 5
    assert "timed out after 1s" in result.stderr


def test_output_is_truncated_the_same_way_for_everyone(sandbox):
    result = sandbox.run(f"yes x | head -c {OUTPUT_LIMIT * 3}")
    assert result.truncated
    assert f"[{OUTPUT_LIMIT * 2} bytes truncated]" in result.stdout
    assert len(result.stdout) < OUTPUT_LIMIT + 100


def test_without_bubblewrap_the_error_says_what_to_install(monkeypatch, tmp_path):
    from kubeproof.agents.sandbox import find_bwrap
    from kubeproof.errors import KubeproofError

    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(KubeproofError, match="bubblewrap") as info:
        find_bwrap()
    assert "apt-get install bubblewrap" in str(info.value)


def test_the_standard_streams_reopen_by_name_as_the_agents_uid(sandbox):
    # /dev/stdin and friends reopen the harness's pipes through /proc/self/fd
    result = sandbox.run(
        "cat < /dev/stdin; echo out > /dev/stdout; echo err > /dev/stderr", stdin=b"typed\n"
    )
    assert (result.exit_code, result.stdout, result.stderr) == (0, "typed\nout\n", "err\n")


def test_a_flood_of_output_is_cut_while_it_streams(sandbox):
    result = sandbox.run("head -c 300000000 /dev/zero | tr '\\0' x")
    assert result.exit_code == 0 and result.truncated
    assert "[299983616 bytes truncated]" in result.stdout and len(result.stdout) < 17_000


NOT_ROOT = """
import socket, sys, threading
from pathlib import Path
from kubeproof.agents.sandbox import Sandbox
server = socket.socket()
server.bind(("127.0.5.5", 0))
server.listen()
port = server.getsockname()[1]
model = socket.socket()  # a model endpoint on the host's loopback, declared below
model.bind(("127.0.0.1", 0))
model.listen()
model_port = model.getsockname()[1]
def answer(listener, text):
    conn, _ = listener.accept()
    conn.sendall(text)
    conn.close()
threading.Thread(target=answer, args=(server, b"the apiserver"), daemon=True).start()
threading.Thread(target=answer, args=(model, b" and the model"), daemon=True).start()
home = Path(sys.argv[1])
kubeconfig = home / "kubeconfig"
kubeconfig.write_text(
    "apiVersion: v1\\nkind: Config\\ncurrent-context: c\\n"
    f"clusters: [{{name: c, cluster: {{server: 'https://127.0.5.5:{port}'}}}}]\\n"
    "contexts: [{name: c, context: {cluster: c, user: u}}]\\nusers: [{name: u, user: {}}]\\n"
)
box = Sandbox(kubeconfig, home / "scratch", "/bin/true",
              endpoints=[f"http://localhost:{model_port}/v1"])
print(box.run(
    "id -u; grep -E '^(CapEff|Seccomp):' /proc/self/status; "
    "python3 -c 'import socket; "
    f"print(socket.create_connection((\\"127.0.5.5\\", {port})).recv(64).decode() + "
    f"socket.create_connection((\\"localhost\\", {model_port})).recv(64).decode())'"
).stdout)
"""


def test_as_an_unprivileged_user_the_sandbox_holds_the_same_way(tmp_path):
    """kubeproof run by a user, not root: the agent is still uid 1000 with no capabilities
    under seccomp, and reaches the apiserver only through the holder and the harness."""
    import shutil
    import subprocess
    import tempfile
    from pathlib import Path

    python = shutil.which("python3", path="/usr/bin")
    probe = subprocess.run([python or "false", "-c", "import yaml, cryptography"], check=False)
    if os.geteuid() != 0 or python is None or probe.returncode != 0:
        pytest.skip("needs root (to become another user) and a system python3 with yaml")
    home = Path(tempfile.mkdtemp(prefix="kubeproof-nonroot-"))
    try:
        home.chmod(0o777)
        src = Path(__file__).resolve().parents[2] / "src"
        result = subprocess.run(
            ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--",
             python, "-c", NOT_ROOT, str(home)],
            capture_output=True, text=True, timeout=120, cwd="/",
            env={"PATH": "/usr/bin:/bin:/usr/sbin:/sbin", "HOME": str(home),
                 "PYTHONPATH": str(src)},
        )  # fmt: skip
    finally:
        shutil.rmtree(home, ignore_errors=True)
    assert result.returncode == 0, result.stderr[-2000:]
    lines = result.stdout.split()
    assert lines[:5] == ["1000", "CapEff:", "0000000000000000", "Seccomp:", "2"], result.stdout
    assert "the apiserver and the model" in result.stdout  # the declared endpoint too
