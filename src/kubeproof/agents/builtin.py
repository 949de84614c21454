"""The reference agents: the oracle (the task's own solution), a no-op, a replay of recorded
commands, and a human at an interactive shell in the same sandbox."""

import json
from pathlib import Path
from typing import Protocol

from kubeproof.agents.kubectl_log import KubectlLog
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


def interpreter(script: str, default: str = "/bin/sh") -> str:
    """The shell a script asks for on its first line (`#!/bin/bash`, `#!/usr/bin/env
    bash`: bash; `#!/bin/sh`: sh), else `default`."""
    first = script.split("\n", 1)[0]
    if not first.startswith("#!"):
        return default
    words = first[2:].split()
    if not words:
        return default
    program = words[1] if words[0].endswith("/env") and len(words) > 1 else words[0]
    name = program.rsplit("/", 1)[-1]
    return {"bash": "/bin/bash", "sh": "/bin/sh"}.get(name, default)


class ScriptAgent:
    """Runs a shell script inside the sandbox as one command whose text is the script, so
    the trajectory holds exactly what ran and a replay of it reproduces the run. The
    oracle is the task's solution/solve.sh; `tasks validate` plays each shortcut this way.
    The script runs under the shell its first line names (bash for Harbor's scripts)."""

    default_shell = "/bin/sh"

    def __init__(self, script: Path, name: str = "script"):
        self.script = script
        self.name = name

    def act(self, session: Session) -> None:
        text = self.script.read_text()
        session.run(text, shell=interpreter(text, self.default_shell))
        if session.decision.outcome == "none" and not session.faults:
            session.run("submit")


class OracleAgent(ScriptAgent):
    """The task's own solution/solve.sh: under bash, as Harbor runs it, unless its first
    line asks for sh."""

    default_shell = "/bin/bash"

    def __init__(self, solution: Path):
        super().__init__(solution, "oracle")


class ReplayAgent:
    """Runs recorded commands, one per line (blank lines and # comments skipped)."""

    name = "replay"

    def __init__(self, commands: list[str]):
        self.commands = commands

    @classmethod
    def from_file(cls, path: Path) -> "ReplayAgent":
        """A file of commands, one per line, or a trajectory.jsonl from an earlier trial
        (its commands, `submit` and `decline` included, in order)."""
        text = path.read_text()
        if path.suffix == ".jsonl":
            steps = [json.loads(line) for line in text.splitlines() if line.strip()]
            # a CLI agent's trajectory: its kubectl calls replay, its whole process does not
            return cls([s["command"] for s in steps if s.get("origin", "agent") != "cli"])
        lines = text.splitlines()
        return cls([line for line in lines if line.strip() and not line.lstrip().startswith("#")])

    def act(self, session: Session) -> None:
        for command in self.commands:
            session.run(command)
            if session.decision.outcome != "none" or session.faults:
                return
        if session.decision.outcome == "none":
            session.run("submit")


class HumanAgent:
    """An interactive shell in the sandbox; `submit` or `decline REASON` ends the turn.
    Each kubectl call is recorded as a step as it ends, as for a CLI agent."""

    name = "human"

    def __init__(self, stdin=None):
        self.stdin = stdin  # the terminal, unless a test types for the human

    def act(self, session: Session) -> None:
        print(session.instruction)
        print("\n(type `submit` when done, or `decline REASON`; exit to stop)\n", flush=True)
        kubectl = KubectlLog(session.sandbox.scratch.parent / "human-log")
        box = kubectl.install(session.sandbox, session.max_steps)
        kubectl.record_while(session, lambda: box.interactive("exec /bin/sh -i", self.stdin))
