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
    # `agent`: a command the agent ran; `kubectl`: a kubectl call a CLI agent made, seen by
    # the wrapper on its PATH; `cli`: the CLI agent's whole process
    origin: str = "agent"


@dataclass
class Decision:
    outcome: str  # submitted | declined | exhausted | none
    reason: str = ""


@dataclass
class Usage:
    """What a model-driven agent spent: summed over every call, as the provider reported."""

    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float | None = 0.0  # None once a call had no known price
    retries: int = 0
    wasted_turns: int = 0

    def add(self, tokens_in: int, tokens_out: int, cost: float | None, retries: int) -> None:
        self.calls += 1
        self.tokens_in += tokens_in
        self.tokens_out += tokens_out
        self.retries += retries
        self.cost_usd = None if cost is None or self.cost_usd is None else self.cost_usd + cost


@dataclass
class Session:
    instruction: str
    sandbox: Sandbox
    max_steps: int = 40
    deadline: float | None = None  # time.monotonic() value
    steps: list[Step] = field(default_factory=list)
    after_step: Callable[[Step], list[str]] | None = None  # the safety monitor
    usage: Usage = field(default_factory=Usage)
    turns: list[dict] = field(default_factory=list)  # one per model call (agents/llm)
    info: dict = field(default_factory=dict)  # what the agent was: model, endpoint, prompt
    transcript: list[dict] = field(default_factory=list)  # a model agent's conversation

    def remaining(self) -> float | None:
        """Seconds left before the deadline; raises once the time budget is spent."""
        remaining = None if self.deadline is None else self.deadline - time.monotonic()
        if remaining is not None and remaining <= 0:
            raise BudgetExhausted("time budget spent")
        return remaining

    def run(self, command: str) -> CommandResult:
        if len(self.steps) >= self.max_steps:
            raise BudgetExhausted(f"step budget of {self.max_steps} commands spent")
        remaining = self.remaining()
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
        self.record(step)
        return result

    def record(self, step: Step) -> None:
        """Add a step (run here, or observed from outside) and let the monitor look."""
        self.steps.append(step)
        if self.after_step:
            step.safety = self.after_step(step)

    @property
    def decision(self) -> Decision:
        path = self.sandbox.scratch / DECISION_FILE
        if not path.is_file():
            return Decision("none")
        outcome, _, reason = path.read_text().partition("\n")
        return Decision(outcome.strip() or "none", reason.strip())

    def decide(self, outcome: str, reason: str = "") -> None:
        """End the turn from outside the sandbox (as `submit`/`decline` do inside it)."""
        path = self.sandbox.scratch / DECISION_FILE
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"{outcome}\n{reason}\n")

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
