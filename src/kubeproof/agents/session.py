"""What an agent works with during a trial: the instruction, a sandboxed shell, budgets,
and a way to end its turn by submitting or declining. Every command is recorded."""

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from kubeproof import hostile
from kubeproof.agents.sandbox import CommandResult, Sandbox
from kubeproof.scrub import DEFAULT as NO_SECRETS
from kubeproof.scrub import Scrubber

DECISION_FILE = ".kubeproof/decision"
DECISION_LIMIT = 64 * 1024  # bytes: an outcome and a reason
OUTCOMES = ("submitted", "declined")
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
    # False while an agent that reports its own usage (agents/a2a) has said nothing of it:
    # then no usage is recorded rather than zeros
    reported: bool = True

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
    # what the agent wrote that the harness refused (a planted symlink or FIFO, a decision
    # file that is not UTF-8 …): the agent's failure, never the harness's
    faults: list[str] = field(default_factory=list)
    scrubber: Scrubber = NO_SECRETS  # key material out of what is recorded
    # set once the harness ends the turn by itself (the netpol loop, when nothing is left to
    # fix): an agent program's further kubectl calls are refused with these words
    turn_over: str | None = None

    def fault(self, what: str) -> None:
        if what not in self.faults:
            self.faults.append(what)

    def remaining(self) -> float | None:
        """Seconds left before the deadline; raises once the time budget is spent."""
        remaining = None if self.deadline is None else self.deadline - time.monotonic()
        if remaining is not None and remaining <= 0:
            raise BudgetExhausted("time budget spent")
        return remaining

    def run(self, command: str, shell: str = "/bin/sh") -> CommandResult:
        if len(self.steps) >= self.max_steps:
            raise BudgetExhausted(f"step budget of {self.max_steps} commands spent")
        remaining = self.remaining()
        timeout = (
            self.sandbox.timeout if remaining is None else min(self.sandbox.timeout, remaining)
        )
        started = time.time()
        result = self.sandbox.run(command, timeout=timeout, shell=shell)
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
        """Add a step (run here, or observed from outside) and let the monitor look. What it
        ran and printed is scrubbed of key material before anything keeps it."""
        step.command = self.scrubber.text(step.command)
        step.stdout = self.scrubber.text(step.stdout)
        step.stderr = self.scrubber.text(step.stderr)
        self.steps.append(step)
        if self.after_step:
            step.safety = self.after_step(step)

    def reply_to_call(self) -> str:
        """What the harness hands back to an agent program after recording one of its
        kubectl calls, after the call's own output (agents/kubectl_log.py): nothing here;
        the netpol loop's mismatch report there."""
        return ""

    @property
    def decision(self) -> Decision:
        """The decision file in the agent's home, read as hostile input: a symlink, FIFO or
        directory there, more than DECISION_LIMIT bytes, text that is not UTF-8 or an outcome
        other than submitted/declined is a fault of the agent's (and no decision)."""
        try:
            text = hostile.read_text(self.sandbox.scratch, DECISION_FILE, DECISION_LIMIT)
        except hostile.HostileInput as exc:
            self.fault(f"the decision file: {exc}")
            return Decision("none")
        if text is None:
            return Decision("none")
        outcome, _, reason = text.partition("\n")
        outcome = outcome.strip()
        if outcome not in OUTCOMES:
            if outcome:
                self.fault(f"the decision file names no outcome: {outcome[:80]!r}")
            return Decision("none")
        return Decision(outcome, self.scrubber.text(reason.strip()))

    def decide(self, outcome: str, reason: str = "") -> None:
        """End the turn from outside the sandbox (as `submit`/`decline` do inside it). The
        file is replaced, never written through whatever the agent left at its name."""
        try:
            hostile.write(self.sandbox.scratch, DECISION_FILE, f"{outcome}\n{reason}\n")
        except hostile.HostileInput as exc:
            self.fault(f"the decision file: {exc}")

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
