"""Any agent program — a coding-agent CLI, a custom script — run inside the sandbox.

The program gets the instruction as an argument (`{instruction}` in its command line), on
stdin, and always in `$KUBEPROOF_INSTRUCTION_FILE`; `KUBECONFIG` points at the agent's
kubeconfig. Its `kubectl` is a wrapper that logs every call (arguments, exit code, output,
times) before the real one runs, so the trajectory shows what it did; the apiserver audit log
shows every API effect, whatever tool made it. The step budget is enforced by the wrapper (a
call past it fails), the time budget by killing the program. `submit` and `decline` work as
for any agent; a program that exits without deciding is taken to have submitted.
"""

import copy
import os
import shlex
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from kubeproof.agents.sandbox import HOME, Bind, truncate
from kubeproof.agents.session import BudgetExhausted, Session, Step

LOG_INSIDE = "/var/log/kubeproof"
REAL_KUBECTL = "/opt/kubeproof/libexec/kubectl"
TRANSCRIPT_LIMIT = 4 * 1024 * 1024
UNLIMITED = 24 * 3600.0
WRAPPER = f"""#!/bin/sh
# kubectl as the agent program sees it: each call is logged, then the real kubectl runs.
calls={LOG_INSIDE}/calls
if [ "$(ls "$calls" | wc -l)" -ge "${{KUBEPROOF_MAX_STEPS:-1000000}}" ]; then
  echo "kubeproof: step budget of $KUBEPROOF_MAX_STEPS commands spent" >&2
  : > {LOG_INSIDE}/exhausted
  exit 1
fi
call=$(mktemp -d "$calls/call.XXXXXXXX")
date +%s.%N > "$call/start"
printf '%s\\0' "$@" > "$call/argv"
{REAL_KUBECTL} "$@" > "$call/out" 2> "$call/err"
rc=$?
date +%s.%N > "$call/end"
echo "$rc" > "$call/rc"
cat "$call/out"
cat "$call/err" >&2
exit "$rc"
"""


class CLIConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    command: str
    # how the instruction is given besides the file: `arg` replaces {instruction} in the
    # command (shell-quoted); `stdin` pipes it; `auto` is `arg` when {instruction} appears
    instruction: Literal["auto", "arg", "stdin", "file"] = "auto"
    env: list[str] = Field(default_factory=list)  # host variables passed in (API keys)
    mounts: list[str] = Field(default_factory=list)  # host paths visible read-only
    timeout_sec: float | None = Field(None, gt=0)  # default: the task's time budget


@dataclass
class Call:
    argv: list[str]
    exit_code: int
    stdout: str
    stderr: str
    started: float
    seconds: float


def read_calls(log: Path) -> list[Call]:
    calls = []
    for d in (log / "calls").iterdir():
        try:
            argv = (d / "argv").read_bytes().split(b"\0")[:-1]
            start = float((d / "start").read_text())
            end = float((d / "end").read_text()) if (d / "end").exists() else start
            rc = int((d / "rc").read_text()) if (d / "rc").exists() else -1
        except (OSError, ValueError):
            continue  # a call killed half-way through its logging
        out = truncate((d / "out").read_bytes())[0] if (d / "out").exists() else ""
        err = truncate((d / "err").read_bytes())[0] if (d / "err").exists() else ""
        calls.append(
            Call([a.decode(errors="replace") for a in argv], rc, out, err, start, end - start)
        )
    return sorted(calls, key=lambda c: c.started)


def _mounts(command: str, extra: list[str]) -> tuple[str, list[Bind]]:
    """Bind the program (when its first word is a file here) and the configured paths at the
    same absolute paths inside, read-only."""
    binds = [Bind(Path(p).resolve(), str(Path(p).resolve())) for p in extra]
    words = shlex.split(command)
    if words and os.path.isfile(words[0]) and "/" in words[0]:
        program = Path(words[0]).resolve()
        binds.append(Bind(program, str(program)))
        command = shlex.join([str(program)]) + command[len(command.split(None, 1)[0]) :]
    return command, binds


class CLIAgent:
    def __init__(self, config: CLIConfig, name: str = "cli", log_dir: Path | None = None):
        self.config = config
        self.name = name
        self.log_dir = log_dir

    def act(self, session: Session) -> None:
        c, box = self.config, session.sandbox
        log = self.log_dir or box.scratch.parent / "cli-log"
        shutil.rmtree(log, ignore_errors=True)
        (log / "calls").mkdir(parents=True)
        wrapper = log.parent / "kubectl-wrapper"
        wrapper.write_text(WRAPPER)
        wrapper.chmod(0o755)
        (box.scratch / "instruction.md").write_text(session.instruction)

        command, binds = _mounts(c.command, c.mounts)
        mode = c.instruction
        if mode == "auto":
            mode = "arg" if "{instruction}" in command else "stdin"
        if mode == "arg":
            command = command.replace("{instruction}", shlex.quote(session.instruction))
        stdin = session.instruction.encode() if mode == "stdin" else None

        sandbox = copy.copy(box)
        sandbox.binds = [
            *box.binds,
            *binds,
            Bind(Path(box.kubectl), REAL_KUBECTL),
            Bind(wrapper, "/opt/kubeproof/bin/kubectl"),
            Bind(log, LOG_INSIDE, writable=True),
        ]
        sandbox.env = {
            **box.env,
            **{name: os.environ[name] for name in c.env if name in os.environ},
            "KUBEPROOF_INSTRUCTION_FILE": f"{HOME}/instruction.md",
            "KUBEPROOF_MAX_STEPS": str(session.max_steps),
        }
        limits = [x for x in (c.timeout_sec, session.remaining()) if x is not None]
        limit = min(limits) if limits else UNLIMITED
        session.info = {"kind": "cli", "command": c.command, "instruction": mode, "env": c.env}
        started = time.time()
        result = sandbox.run(command, timeout=limit, stdin=stdin, output_limit=TRANSCRIPT_LIMIT)
        session.transcript = [{"stdout": result.stdout, "stderr": result.stderr}]

        for index, call in enumerate(read_calls(log), start=len(session.steps) + 1):
            session.steps.append(
                Step(
                    index,
                    shlex.join(["kubectl", *call.argv]),
                    call.exit_code,
                    call.stdout,
                    call.stderr,
                    round(call.seconds, 3),
                    False,
                    False,
                    round(call.started, 3),
                    origin="kubectl",
                )
            )
        whole = Step(
            len(session.steps) + 1,
            c.command,
            result.exit_code,
            truncate(result.stdout.encode())[0],  # the whole transcript is in transcript.json
            truncate(result.stderr.encode())[0],
            result.seconds,
            result.timed_out,
            result.truncated,
            round(started, 3),
            origin="cli",
        )
        session.record(whole)
        if result.timed_out:
            raise BudgetExhausted(
                f"time budget spent: the agent program was killed after {limit:g}s"
            )
        if (log / "exhausted").exists():
            raise BudgetExhausted(f"step budget of {session.max_steps} commands spent")
        if session.decision.outcome == "none":
            session.decide("submitted", f"the agent program exited with code {result.exit_code}")
