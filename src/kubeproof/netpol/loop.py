"""The netpol agent loop: a session whose every command is followed by a mismatch report
computed by netsim from the live objects, handed back with the command's output, and
which ends when the matrix equals the intent, the agent submits, or the iteration cap is
spent.

Two modes (docs/netpol.md, "The loop"): `operator`, any command the agent's RBAC allows;
`netarena`, NetArena's rules: its block-list (a command containing one of its substrings
is not run, says so, and uses an iteration), its cap of 10 commands and its 10 s command
timeout (app-k8s/run_workflow.py, text_utils.py)."""

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from kubeproof.agents.sandbox import CommandResult
from kubeproof.agents.session import BudgetExhausted, Session, Step
from kubeproof.netpol.report import Report
from kubeproof.netpol.scores import Matrix

Mode = Literal["operator", "netarena"]
MODES: tuple[Mode, ...] = ("operator", "netarena")
# text_utils.check_disallowed_commands: substrings, so `bash` refuses any command naming it
NETARENA_BLOCKED = (
    "kubectl exec",
    "kubectl edit",
    "kubectl delete",
    "kubectl create",
    "kubectl apply",
    "bash",
    "<namespace>",
    "sudo",
)
NETARENA_CAP = 10  # run_workflow.py max_iterations, the AgentBeats scenario's too
NETARENA_TIMEOUT = 10.0  # seconds: subprocess.run(..., timeout=10)
OPERATOR_CAP = 30
REFUSED = 126  # the exit code a refused command reports, as a shell's "cannot execute"


class IntentReached(BudgetExhausted):
    """Not a budget: the matrix equals the intent, so the turn ends here. A subclass of
    BudgetExhausted so that every agent's loop ends as it does when a budget runs out."""


def refusal(mode: Mode, command: str) -> str | None:
    """Why the mode refuses to run the command, or None."""
    if mode == "netarena":
        hit = next((k for k in NETARENA_BLOCKED if k in command), None)
        if hit is not None:
            return f"Skipped due to disallowed command ({hit!r} is not allowed)."
    return None


@dataclass
class Measured:
    """What the harness saw after one step."""

    matrix: Matrix | None  # None: the command was refused, nothing ran
    mismatches: int | None
    seconds: float  # the harness's time to read the objects and compute the report
    refused: str | None = None
    report: str = ""


@dataclass
class NetpolSession(Session):
    measure: Callable[[], Report] | None = None  # the live report, after each command
    mode: Mode = "operator"
    explain: bool = True  # each mismatch with netsim's reason
    measured: list[Measured] = field(default_factory=list)
    _reply: str = ""  # the report to hand back to an agent program's last kubectl call

    @property
    def one_command(self) -> bool:
        """NetArena's rule, one command per turn: an agent whose replies are read for
        commands (agents/a2a) has only the first of each reply run, as NetArena does."""
        return self.mode == "netarena"

    def run(self, command: str, shell: str = "/bin/sh") -> CommandResult:
        if len(self.steps) >= self.max_steps:
            raise BudgetExhausted(f"iteration cap of {self.max_steps} commands spent")
        why = refusal(self.mode, command)
        if why is not None:
            self.remaining()
            started = round(time.time(), 3)
            self.record(
                Step(len(self.steps) + 1, command, REFUSED, "", why, 0.0, False, False, started)
            )
            self.measured.append(Measured(None, None, 0.0, why))
            return CommandResult(command, REFUSED, "", why, 0.0)
        result = super().run(command, shell)
        text, left = self._measure()
        if not left:
            raise IntentReached(INTENT_REACHED)
        return dataclasses.replace(
            result, stdout=f"{result.stdout}\n{REPORT_HEADING}\n{self.scrubber.text(text)}"
        )

    def _measure(self) -> tuple[str, int]:
        """The report after a command, kept; its text and how many probes mismatch."""
        began = time.monotonic()
        assert self.measure is not None
        report = self.measure()
        text = report.text(self.explain)
        seconds = round(time.monotonic() - began, 4)
        self.measured.append(Measured(report.matrix(), len(report.mismatches), seconds, None, text))
        return text, len(report.mismatches)

    def record(self, step: Step) -> None:
        """An agent program's steps are its kubectl calls, each measured as it is recorded
        (agents/kubectl_log.py hands the report back to the call); the program's whole run
        is not a step of the loop (its output is in transcript.json)."""
        if step.origin == "cli":
            return
        super().record(step)
        if step.origin != "kubectl":
            return
        text, left = self._measure()
        self._reply = f"{REPORT_HEADING}\n{self.scrubber.text(text)}"
        if not left:
            self.turn_over = INTENT_REACHED
            self._reply += f"\n{INTENT_REACHED}\n"

    def reply_to_call(self) -> str:
        """The mismatch report after an agent program's last kubectl call."""
        reply, self._reply = self._reply, ""
        return reply


REPORT_HEADING = "--- connectivity after this command (mismatch report) ---"
INTENT_REACHED = "the connectivity matrix equals the intent: the turn is over"

OPERATOR_RULES = """\
Fix the cluster so that the connectivity is exactly as intended: what should connect
connects, and nothing else does. Use kubectl; your permissions let you read the workloads
and change NetworkPolicies, Services, Deployments and namespace labels. Keep what is
correct now working, and do not open anything the intent does not ask for. After every
command you get the updated mismatch report; the turn ends by itself once nothing
mismatches. Run `submit` when you are done, or `decline REASON` if you cannot fix it.
You have at most {cap} commands."""

NETARENA_RULES = """\
Rules: issue one command at a time. Use `kubectl patch --type=json` to change
NetworkPolicies. Do not use kubectl exec, edit, delete, create or apply, bash or sudo;
do not read logs or events. Maintain the originally correct connectivity. After every
command you get its output and the updated mismatch report; the task ends once nothing
mismatches, or after {cap} commands."""


def prompt(
    intent: str, report: Report, mode: Mode, cap: int, explain: bool, extra: str = ""
) -> str:
    """The first turn: the intent, the mode's rules, what the prompt variant adds (a worked
    example, a request to reason first: prompts.py) and the current mismatch report (not
    NetArena's blind `<NO PREVIOUS OUTPUT>`)."""
    rules = (OPERATOR_RULES if mode == "operator" else NETARENA_RULES).format(cap=cap)
    added = f"{extra.rstrip()}\n\n" if extra else ""
    return (
        "You are a network engineer on a Kubernetes cluster whose NetworkPolicies (or what "
        "they depend on) are broken.\n\n"
        f"{intent.rstrip()}\n\n{rules}\n\n{added}"
        f"The current connectivity (mismatch report):\n{report.text(explain)}"
    )
