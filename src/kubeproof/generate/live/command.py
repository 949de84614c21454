"""S2 of a COMMAND answer: the command, already refused unless S0 found it safe
(kubeproof.generate.command), run for real with stock kubectl as the evaluation identity:
its own kubeconfig placed first on the line, no shell, an empty environment and home, a
timeout and bounded output. What it did is read from the cluster itself: a snapshot of
every object an answer may write, before and after, gives what it created, changed and
deleted, whatever the subcommand."""

import subprocess
import tempfile
import time
from pathlib import Path

from lightkube import Client
from pydantic import BaseModel, Field

from kubeproof.cluster.base import kubectl_binary
from kubeproof.generate.live import objects
from kubeproof.generate.live.apply import Applied, Refusal
from kubeproof.generate.live.identity import Evaluator
from kubeproof.generate.model import ObjectRef, Stage
from kubeproof.generate.offline import StageResult

TIMEOUT = 20.0  # seconds: a command that waits longer (a watch) fails S2
OUTPUT_LIMIT = 64 * 1024  # bytes of stdout and of stderr kept
_ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}


class Ran(BaseModel):
    exit_code: int | None = Field(description="None when the command timed out.")
    stdout: str
    stderr: str
    seconds: float


def run(evaluator: Evaluator, argv: list[str]) -> Ran:
    """`argv` (kubectl and its words, checked by S0) as the evaluation identity."""
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="kubeproof-command-") as home:
        config = evaluator.kubeconfig(Path(home) / "kubeconfig")
        cmd = [kubectl_binary(), f"--kubeconfig={config}", *argv[1:]]
        try:
            done = subprocess.run(
                cmd,
                capture_output=True,
                stdin=subprocess.DEVNULL,
                cwd=home,
                env={**_ENV, "HOME": home},
                timeout=TIMEOUT,
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            return Ran(exit_code=None, stdout=_text(exc.stdout), stderr=_text(exc.stderr),
                       seconds=round(time.monotonic() - start, 4))  # fmt: skip
    return Ran(
        exit_code=done.returncode,
        stdout=_text(done.stdout),
        stderr=_text(done.stderr),
        seconds=round(time.monotonic() - start, 4),
    )


def _text(data: bytes | str | None) -> str:
    if isinstance(data, str):
        data = data.encode()
    return (data or b"")[:OUTPUT_LIMIT].decode("utf-8", "replace")


def diff(before: dict, after: dict) -> Applied:
    """What changed between two snapshots."""
    return Applied(
        created=[after[k][0] for k in sorted(after.keys() - before.keys(), key=str)],
        changed=[
            after[k][0]
            for k in sorted(after.keys() & before.keys(), key=str)
            if after[k][1] != before[k][1]
        ],
        deleted=[before[k][0] for k in sorted(before.keys() - after.keys(), key=str)],
    )


def command_stage(
    evaluator: Evaluator, admin: Client, argv: list[str]
) -> tuple[Applied, StageResult, str]:
    """S2: run the command; what it did, the stage, and what it printed."""
    before = objects.snapshot(admin)
    ran = run(evaluator, argv)
    applied = diff(before, objects.snapshot(admin))
    if ran.exit_code == 0:
        stage = StageResult(stage=Stage.s2_apply, passed=True, reason="exit 0")
    else:
        why = "timed out" if ran.exit_code is None else f"exit {ran.exit_code}"
        message = f"{why}: {ran.stderr.strip()[:500]}"
        whole = ObjectRef(api_version="v1", kind="Command", name=argv[1] if len(argv) > 1 else "")
        applied.refused.append(Refusal(object=whole, code=ran.exit_code or 0, message=message))
        stage = StageResult(stage=Stage.s2_apply, passed=False, reason=message)
    return applied, stage, ran.stdout
