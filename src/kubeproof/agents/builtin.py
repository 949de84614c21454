"""The reference agents: the oracle (the task's own solution), a no-op, a replay of recorded
commands, and a human at an interactive shell in the same sandbox."""

import shutil
import subprocess
from pathlib import Path
from typing import Protocol

from kubeproof.agents.session import Session


class Agent(Protocol):
    name: str

    def act(self, session: Session) -> None:
        """Work on the task through `session.run`; end by submitting or declining."""


class NoopAgent:
    """Does nothing: a task it resolves is not a task."""

    name = "noop"

    def act(self, session: Session) -> None:
        session.run("submit")


class OracleAgent:
    """Runs the task's solution/solve.sh inside the sandbox, as one command."""

    name = "oracle"

    def __init__(self, solution: Path):
        self.solution = solution

    def act(self, session: Session) -> None:
        shutil.copyfile(self.solution, session.sandbox.scratch / "solve.sh")
        session.run("sh ./solve.sh")
        if session.decision.outcome == "none":
            session.run("submit")


class ReplayAgent:
    """Runs recorded commands, one per line (blank lines and # comments skipped)."""

    name = "replay"

    def __init__(self, commands: list[str]):
        self.commands = commands

    @classmethod
    def from_file(cls, path: Path) -> "ReplayAgent":
        lines = path.read_text().splitlines()
        return cls([line for line in lines if line.strip() and not line.lstrip().startswith("#")])

    def act(self, session: Session) -> None:
        for command in self.commands:
            session.run(command)
            if session.decision.outcome != "none":
                return
        if session.decision.outcome == "none":
            session.run("submit")


class HumanAgent:
    """An interactive shell in the sandbox; `submit` or `decline REASON` ends the turn."""

    name = "human"

    def act(self, session: Session) -> None:
        print(session.instruction)
        print("\n(type `submit` when done, or `decline REASON`; exit to stop)\n")
        subprocess.run(session.sandbox.argv("exec /bin/sh -i"), check=False)
