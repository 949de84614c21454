"""Task scripts that run with the cluster admin's credentials: a setup script
(environment/setup.sh, after the setup manifests) and a shell verifier (tests/test.sh).

They run in the same bubblewrap sandbox as the agent's commands (agents/sandbox.py) — the
task's scripts are not the harness, and a verifier reads what the agent left behind —
but with the admin kubeconfig as `$KUBECONFIG`, under bash, with the folders the task
asks for bound in (Harbor's containers mount `/bootstrap`, `/tests`, `/logs/verifier`).
"""

import shutil
import tempfile
from pathlib import Path

from kubeproof.agents.limits import Limits
from kubeproof.agents.sandbox import Bind, CommandResult, Sandbox
from kubeproof.cluster.base import Cluster, kubectl_binary
from kubeproof.errors import KubeproofError
from kubeproof.tasks import Task

# what a setup script prints is kept for the error message; more is noise
SETUP_OUTPUT = 256 * 1024
RESERVED = ("kubectl", "submit", "decline")  # the harness's commands, never a task's
TOOL_LIMIT = 1 << 20  # bytes: a command of environment/bin/ is a script, not a payload


def copy_tools(task: Task, directory: Path) -> Path:
    """The task's commands (environment/bin/*, regular files only: a symlink could name
    anything on the host) into `directory`, executable, for a sandbox's PATH."""
    directory.mkdir(parents=True, exist_ok=True)
    if task.bin is None:
        return directory
    for path in sorted(task.bin.iterdir()):
        if path.is_symlink() or not path.is_file():
            raise KubeproofError(f"{path}: environment/bin/ holds regular files only")
        if path.stat().st_size > TOOL_LIMIT:
            raise KubeproofError(f"{path}: over {TOOL_LIMIT >> 10} KiB")
        if path.name in RESERVED:
            raise KubeproofError(f"{path}: {path.name} is kubeproof's own command")
        target = directory / path.name
        shutil.copyfile(path, target)
        target.chmod(0o755)
    return directory


def admin_sandbox(
    cluster: Cluster,
    task: Task,
    scratch: Path,
    binds: list[Bind],
    timeout: float,
    kubeconfig: Path | None = None,
) -> Sandbox:
    """A sandbox whose kubeconfig is the admin's (or `kubeconfig`), with the task's
    commands on the PATH."""
    tools = copy_tools(task, scratch.parent / f"{scratch.name}-bin")
    return Sandbox(
        kubeconfig or cluster.admin_kubeconfig,
        scratch,
        kubectl_binary(),
        timeout=timeout,
        tools=tools,
        binds=binds,
        # a bootstrap applies many manifests and waits on rollouts: room for kubectl's cache
        limits=Limits(),
    )


def run_as_admin(
    cluster: Cluster,
    task: Task,
    command: str,
    scratch: Path,
    binds: list[Bind],
    timeout: float,
    output_limit: int = SETUP_OUTPUT,
    kubeconfig: Path | None = None,
) -> CommandResult:
    """`command` under bash in an admin sandbox (`kubeconfig`: another identity's)."""
    sandbox = admin_sandbox(cluster, task, scratch, binds, timeout, kubeconfig)
    try:
        return sandbox.run(command, timeout=timeout, shell="/bin/bash", output_limit=output_limit)
    finally:
        sandbox.close()


def setup_binds(task: Task, scratch: Path) -> list[Bind]:
    """environment/ at /environment, and each `setup_mounts` entry: a folder under
    environment/ (read-only) or `scratch`, an empty writable folder."""
    env = (task.root / "environment").resolve()
    binds = [Bind(env, "/environment")]
    for inside, source in sorted(task.spec.kubeproof.setup_mounts.items()):
        if source == "scratch":
            folder = scratch.parent / f"mount{len(binds)}"
            folder.mkdir(parents=True, exist_ok=True)
            binds.append(Bind(folder, inside, writable=True))
            continue
        folder = (env / source).resolve()
        if not folder.is_relative_to(env) or not folder.is_dir():
            raise KubeproofError(f"setup_mounts {inside}: {source} is no folder under {env}")
        binds.append(Bind(folder, inside))
    return binds


class SetupFailed(KubeproofError):
    """The setup script exited non-zero or ran out of time; `output`: all it printed
    (up to SETUP_OUTPUT of each stream), kept as the trial's setup.log."""

    def __init__(self, message: str, output: str = ""):
        super().__init__(message)
        self.output = output


def run_setup_script(cluster: Cluster, task: Task) -> None:
    """environment/setup.sh as admin; a failure (exit status, time limit) stops the
    trial before the agent starts, with the script's last output in the error."""
    if task.setup_script is None:
        return
    with tempfile.TemporaryDirectory(prefix="kubeproof-setup-") as tmp:
        scratch = Path(tmp) / "home"
        scratch.mkdir()
        timeout = task.spec.kubeproof.setup_timeout_sec
        result = run_as_admin(
            cluster,
            task,
            "exec bash /environment/setup.sh",
            scratch,
            setup_binds(task, scratch),
            timeout,
        )
    if result.exit_code != 0:
        tail = (result.stderr.strip() or result.stdout.strip())[-800:]
        raise SetupFailed(
            f"task setup failed at {task.setup_script} (exit {result.exit_code}): {tail}",
            f"$ bash /environment/setup.sh  (exit {result.exit_code}, {result.seconds:.1f}s)\n"
            f"{result.stdout}\n--- stderr ---\n{result.stderr}",
        )
