"""The sandbox pieces a Harbor task needs, without a cluster: a command under bash or sh,
starting in a task's workspace bound at its workdir, and a workspace the agent swapped for
a symlink between commands refused rather than followed (issue 16 item 6)."""

from pathlib import Path

import pytest

from kubeproof.agents.sandbox import Bind, Sandbox
from kubeproof.cluster.base import kubectl_binary
from kubeproof.cluster.kubeconfig import write_token_kubeconfig
from kubeproof.hostile import HostileInput


@pytest.fixture
def box(tmp_path):
    kubeconfig = write_token_kubeconfig(
        tmp_path / "kubeconfig",
        cluster="none",
        server="https://127.0.0.1:6443",
        ca_pem=b"",
        user="agent",
        token="t",
        namespace=None,
    )
    workspace = tmp_path / "home" / "workspace"
    workspace.mkdir(parents=True)
    (workspace / "README.md").write_text("runbook\n")
    sandbox = Sandbox(
        kubeconfig,
        tmp_path / "home",
        kubectl_binary(),
        timeout=20,
        binds=[Bind(workspace, "/app", writable=True)],
        workdir="/app",
    )
    yield sandbox, workspace
    sandbox.close()


def test_commands_start_in_the_workspace_under_the_shell_asked(box):
    sandbox, workspace = box
    bash = sandbox.run('[[ -f README.md ]] && echo "$PWD" > NOTES.txt', shell="/bin/bash")
    assert bash.exit_code == 0, bash.stderr
    assert (workspace / "NOTES.txt").read_text() == "/app\n"  # written through the bind
    sh = sandbox.run("[[ -f README.md ]]")  # sh by default: no [[
    assert sh.exit_code == 127 and "[[: not found" in sh.stderr
    with pytest.raises(Exception, match="no such sandbox shell"):
        sandbox.run("true", shell="/usr/bin/python3")


def test_a_workspace_swapped_for_a_symlink_is_never_mounted(box, tmp_path: Path):
    sandbox, workspace = box
    workspace.rename(tmp_path / "moved")
    workspace.symlink_to("/etc")  # what the agent could leave between two commands
    with pytest.raises(HostileInput, match="replaced by a symlink") as caught:
        sandbox.run("ls")
    assert caught.value.planted
