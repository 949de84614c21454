"""What a trial is to do (task, agent, repeat, directory) and what it needs to know of
its task before it starts."""

import base64
from dataclasses import dataclass
from pathlib import Path

import yaml
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from kubeproof.agents.spec import AgentSpec, parse
from kubeproof.evidence import keys
from kubeproof.results import TrialPaths
from kubeproof.tasks import Task


@dataclass
class TrialPlan:
    task: Task
    agent: str  # an agent spec (agents/spec.py)
    repeat: int
    dir: Path
    resolved: AgentSpec | None = None  # the spec parsed (named agents come from a file)
    protocol: bool = False  # the agent is offered prescribe/report (evidence protocol mode)

    def __post_init__(self) -> None:
        if self.resolved is None:
            self.resolved = parse(self.agent)

    @property
    def paths(self) -> TrialPaths:
        return TrialPaths(self.dir)

    @property
    def name(self) -> str:
        return f"{self.task.id} · {self.resolved.label} #{self.repeat}"


def task_namespaces(task: Task) -> list[str]:
    """Namespaces the task's manifests create or write into, and those it names (made by
    a setup script)."""
    found: set[str] = set(task.spec.kubeproof.namespaces)
    for path in [*task.setup, *(b for b in task.breaks if b.suffix in (".yaml", ".yml"))]:
        for doc in yaml.safe_load_all(path.read_text()):
            if not isinstance(doc, dict):
                continue
            meta = doc.get("metadata") or {}
            if doc.get("kind") == "Namespace":
                found.add(meta["name"])
            elif meta.get("namespace"):
                found.add(meta["namespace"])
    return sorted(found)


def key_secrets(key: Ed25519PrivateKey) -> list[str]:
    """The signing key as it could be printed: PEM, and base64 of its raw seed."""
    raw = key.private_bytes(
        serialization.Encoding.Raw,
        serialization.PrivateFormat.Raw,
        serialization.NoEncryption(),
    )
    return [keys.private_pem(key).decode(), base64.b64encode(raw).decode(), raw.hex()]
