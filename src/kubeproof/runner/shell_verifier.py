"""A shell verifier: a task's tests/test.sh, run once after the agent's turn, judged by
Harbor's reward convention.

It runs as admin (runner/admin_shell.py), or as the agent when the task says
(`verifier_credentials`), with the task's tests/ at /tests (read-only), a
writable /logs/verifier, and the agent's workspace at the task's workdir (read-only). It
writes a number to /logs/verifier/reward.txt, or a JSON object to reward.json (its
`reward`, or its one value); a reward of 1 or more passes, as infra-bench's metric counts
a pass. What it wrote is read as hostile input (the agent shaped what the verifier saw):
regular files only, never through a symlink, at most REWARD_LIMIT bytes, strictly parsed.
"""

import json
import math
from pathlib import Path

from kubeproof import hostile
from kubeproof.agents.sandbox import Bind
from kubeproof.cluster.base import Cluster
from kubeproof.runner.admin_shell import run_as_admin
from kubeproof.tasks import Task
from kubeproof.verify.result import Result

NAME = "shell verifier"
REWARD_LIMIT = 4096  # bytes: a number, or a small JSON object
LOG_LIMIT = 1 << 20  # bytes of each log the verifier wrote, copied into the verifier log
VERIFIER_OUTPUT = 256 * 1024


def reward(logs: Path) -> tuple[float | None, str]:
    """The reward the verifier wrote under `logs` (None: none, or unreadable) and why."""
    try:
        text = hostile.read_text(logs, "reward.txt", REWARD_LIMIT)
        source = "reward.txt"
        if text is None:
            text = hostile.read_text(logs, "reward.json", REWARD_LIMIT)
            source = "reward.json"
    except hostile.HostileInput as exc:
        return None, f"unreadable reward file: {exc}"
    if text is None:
        return None, "wrote no /logs/verifier/reward.txt or reward.json"
    try:
        if source == "reward.txt":
            value = float(text.strip())
        else:
            data = json.loads(text)
            if not isinstance(data, dict):
                raise ValueError("not a JSON object")
            picked = data.get("reward", next(iter(data.values())) if len(data) == 1 else None)
            if isinstance(picked, bool) or not isinstance(picked, int | float):
                raise ValueError("no numeric `reward`")
            value = float(picked)
    except (ValueError, StopIteration) as exc:
        return None, f"{source} holds no reward: {str(exc)[:120]}"
    if not math.isfinite(value):
        return None, f"{source} holds no finite number"
    return value, source


def verifier_binds(task: Task, logs: Path, workspace: Path | None) -> list[Bind]:
    binds = [Bind((task.root / "tests").resolve(), "/tests"), Bind(logs, "/logs/verifier", True)]
    workdir = task.spec.kubeproof.workdir
    if workspace is not None and workdir is not None and workspace.is_dir():
        binds.append(Bind(workspace, workdir))
    return binds


def run_shell_verifier(
    cluster: Cluster,
    task: Task,
    trial_dir: Path,
    workspace: Path | None,
    kubeconfig: Path | None = None,
) -> tuple[Result, str]:
    """Run tests/test.sh; its result and the log to keep as the verifier log (its output,
    then every *.log it left in /logs/verifier)."""
    logs = trial_dir / "verifier"
    logs.mkdir(parents=True, exist_ok=True)
    scratch = trial_dir / "verifier-home"
    scratch.mkdir(parents=True, exist_ok=True)
    timeout = task.spec.verifier.timeout_sec
    ran = run_as_admin(
        cluster,
        task,
        "exec bash /tests/test.sh",
        scratch,
        verifier_binds(task, logs, workspace),
        timeout,
        output_limit=VERIFIER_OUTPUT,
        kubeconfig=kubeconfig,
    )
    parts = [f"$ bash /tests/test.sh  (exit {ran.exit_code}, {ran.seconds:.1f}s)\n"]
    parts += [ran.stdout, ran.stderr]
    for path in sorted(logs.glob("*.log")):
        try:
            text = hostile.read_text(logs, path.name, LOG_LIMIT)
        except hostile.HostileInput as exc:
            text = f"(unreadable: {exc})"
        parts.append(f"\n== /logs/verifier/{path.name}\n{text or ''}")
    log = "".join(parts)
    value, why = reward(logs)
    if ran.timed_out:
        result = Result(NAME, False, f"tests/test.sh ran out of its {timeout:g}s")
    elif value is None:
        result = Result(NAME, False, f"tests/test.sh (exit {ran.exit_code}) {why}")
    else:
        result = Result(NAME, value >= 1, f"reward {value:g} ({why} of tests/test.sh)")
    return result, log
