"""Any agent program — a coding-agent CLI, a custom script — run inside the sandbox.

The program gets the instruction as an argument (`{instruction}` in its command line), on
stdin, and always in `$KUBEPROOF_INSTRUCTION_FILE`; `KUBECONFIG` points at the agent's
kubeconfig. Its `kubectl` is a wrapper (`kubectl_log`) that logs every call, so the
trajectory shows what it did, call by call, with the safety monitor looking at the cluster
after each; the apiserver audit log shows every API effect, whatever tool made it. The step
budget is enforced by the wrapper (a call past it fails), the time budget by killing the
program. `submit` and `decline` work as for any agent; a program that exits without
deciding is taken to have submitted.
"""

import os
import shlex
import time
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator

from kubeproof import hostile
from kubeproof.agents.kubectl_log import KubectlLog
from kubeproof.agents.sandbox import HOME, Bind, truncate
from kubeproof.agents.session import BudgetExhausted, Session, Step

TRANSCRIPT_LIMIT = 4 * 1024 * 1024
UNLIMITED = 24 * 3600.0


class CLIConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    command: str
    # how the instruction is given besides the file: `arg` replaces {instruction} in the
    # command (shell-quoted); `stdin` pipes it; `auto` is `arg` when {instruction} appears
    instruction: Literal["auto", "arg", "stdin", "file"] = "auto"
    env: list[str] = Field(default_factory=list)  # host variables passed in (API keys)
    mounts: list[str] = Field(default_factory=list)  # host paths visible read-only
    timeout_sec: float | None = Field(None, gt=0)  # default: the task's time budget
    # services the program may reach besides the apiserver (its model API), as URLs; each
    # host and port is relayed by the harness, nothing else is routed (agents/netns.py)
    endpoints: list[str] = Field(default_factory=list, max_length=16)

    @field_validator("endpoints")
    @classmethod
    def _urls(cls, urls: list[str]) -> list[str]:
        for url in urls:
            parts = urlsplit(url)
            if parts.scheme not in ("http", "https") or not parts.hostname:
                raise ValueError(f"endpoint {url!r} is not an http(s) URL with a host")
            parts.port  # noqa: B018 — raises on a port that is not one
        return urls


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

    @property
    def endpoints(self) -> list[str]:
        """What the trial's sandbox must route besides the apiserver."""
        return self.config.endpoints

    def act(self, session: Session) -> None:
        c, box = self.config, session.sandbox
        kubectl = KubectlLog(self.log_dir or box.scratch.parent / "cli-log")
        sandbox = kubectl.install(box, session.max_steps)
        hostile.write(box.scratch, "instruction.md", session.instruction)

        command, binds = _mounts(c.command, c.mounts)
        mode = c.instruction
        if mode == "auto":
            mode = "arg" if "{instruction}" in command else "stdin"
        if mode == "arg":
            command = command.replace("{instruction}", shlex.quote(session.instruction))
        stdin = session.instruction.encode() if mode == "stdin" else None

        sandbox.binds = [*sandbox.binds, *binds]
        sandbox.env = {
            **sandbox.env,
            **{name: os.environ[name] for name in c.env if name in os.environ},
            "KUBEPROOF_INSTRUCTION_FILE": f"{HOME}/instruction.md",
        }
        limits = [x for x in (c.timeout_sec, session.remaining()) if x is not None]
        limit = min(limits) if limits else UNLIMITED
        session.info = {
            "kind": "cli",
            "command": c.command,
            "instruction": mode,
            "env": c.env,
            "endpoints": c.endpoints,
        }
        started = time.time()
        result = kubectl.record_while(
            session,
            lambda: sandbox.run(command, timeout=limit, stdin=stdin, output_limit=TRANSCRIPT_LIMIT),
        )
        scrub = session.scrubber.text
        session.transcript = [{"stdout": scrub(result.stdout), "stderr": scrub(result.stderr)}]
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
        if kubectl.exhausted:
            raise BudgetExhausted(f"step budget of {session.max_steps} commands spent")
        if session.decision.outcome == "none":
            session.decide("submitted", f"the agent program exited with code {result.exit_code}")
