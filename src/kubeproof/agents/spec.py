"""Agent specs as written on the command line: `oracle`, `noop`, `human`,
`replay:FILE` (commands, one per line, or an earlier trial's trajectory.jsonl) and
`script:FILE` (a shell script run as one command, as `tasks validate` plays shortcuts)."""

from pathlib import Path

from kubeproof.agents.builtin import (
    Agent,
    HumanAgent,
    NoopAgent,
    OracleAgent,
    ReplayAgent,
    ScriptAgent,
)
from kubeproof.errors import KubeproofError
from kubeproof.tasks import Task

KINDS = ("oracle", "noop", "human", "replay:FILE", "script:FILE")


def check(spec: str) -> str:
    """The spec if it is well formed (files exist), else a clear error."""
    kind, _, arg = spec.partition(":")
    if kind in ("oracle", "noop", "human") and not arg:
        return spec
    if kind in ("replay", "script") and arg:
        if not Path(arg).is_file():
            raise KubeproofError(f"agent {spec!r}: no such file {arg}")
        return spec
    raise KubeproofError(f"unknown agent {spec!r}", hint=f"agents: {', '.join(KINDS)}")


def label(spec: str) -> str:
    """A short name for directories and tables: `oracle`, `replay-cmds`, `script-wildcard`."""
    kind, _, arg = spec.partition(":")
    return f"{kind}-{Path(arg).stem}" if arg else kind


def build(spec: str, task: Task) -> Agent:
    kind, _, arg = check(spec).partition(":")
    if kind == "oracle":
        if task.solution is None:
            raise KubeproofError(f"{task.id} has no solution/solve.sh")
        return OracleAgent(task.solution)
    if kind == "noop":
        return NoopAgent()
    if kind == "human":
        return HumanAgent()
    if kind == "replay":
        return ReplayAgent.from_file(Path(arg))
    return ScriptAgent(Path(arg), label(spec))
