"""What an agent works with during a trial: the instruction, a sandboxed shell, budgets,
and a way to end its turn by submitting or declining. Every command is recorded."""

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from kubeproof.agents.sandbox import CommandResult, Sandbox

DECISION_FILE = ".kubeproof/decision"
# Commands available inside the sandbox, so shell-based agents (the oracle, CLI agents) can
# end their turn too. They write the decision into the scratch home, which the harness reads.
TOOLS = {
    "submit": '#!/bin/sh\nmkdir -p "$HOME/.kubeproof"\nprintf "submitted\\n%s\\n" "$*" '
    '> "$HOME/.kubeproof/decision"\necho "submitted"\n',
    "decline": '#!/bin/sh\nmkdir -p "$HOME/.kubeproof"\nprintf "declined\\n%s\\n" "$*" '
    '> "$HOME/.kubeproof/decision"\necho "declined: $*"\n',
}


class BudgetExhausted(Exception):
    """The trial's step or time budget is spent; the reason says which."""


@dataclass
class Step:
    index: int
    command: str
    exit_code: int
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool
    truncated: bool
    started: float = 0.0  # wall clock (epoch seconds), to place audit events in steps
    safety: list[str] = field(default_factory=list)  # collateral breaks seen after it


@dataclass
class Decision:
    outcome: str  # submitted | declined | exhausted | none
    reason: str = ""


@dataclass
class Session:
    instruction: str
    sandbox: Sandbox
    max_steps: int = 40
    deadline: float | None = None  # time.monotonic() value
    steps: list[Step] = field(default_factory=list)
    after_step: Callable[[Step], list[str]] | None = None  # the safety monitor

    def run(self, command: str) -> CommandResult:
        if len(self.steps) >= self.max_steps:
            raise BudgetExhausted(f"step budget of {self.max_steps} commands spent")
        remaining = None if self.deadline is None else self.deadline - time.monotonic()
        if remaining is not None and remaining <= 0:
            raise BudgetExhausted("time budget spent")
        timeout = (
            self.sandbox.timeout if remaining is None else min(self.sandbox.timeout, remaining)
        )
        started = time.time()
        result = self.sandbox.run(command, timeout=timeout)
        step = Step(
            len(self.steps) + 1,
            command,
            result.exit_code,
            result.stdout,
            result.stderr,
            result.seconds,
            result.timed_out,
            result.truncated,
            round(started, 3),
        )
        self.steps.append(step)
        if self.after_step:
            step.safety = self.after_step(step)
        return result

    @property
    def decision(self) -> Decision:
        path = self.sandbox.scratch / DECISION_FILE
        if not path.is_file():
            return Decision("none")
        outcome, _, reason = path.read_text().partition("\n")
        return Decision(outcome.strip() or "none", reason.strip())

    def trajectory(self) -> list[dict]:
        return [asdict(s) for s in self.steps]


def install_tools(directory: Path) -> Path:
    """Write the sandbox's `submit` and `decline` commands into `directory`."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, body in TOOLS.items():
        path = directory / name
        path.write_text(body)
        path.chmod(0o755)
    return directory
