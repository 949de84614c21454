"""What a result depends on: enough to reproduce it, or to tell that two are not comparable.

kubeproof's version and git commit, the Kubernetes it simulates, the simulated kubelet's
timing profile, the task's content digest, the agent spec and its model parameters, the
seed and the machine. Gathered once per process where it cannot change (`harness()`).
"""

import hashlib
import os
import platform
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any, ClassVar

from pydantic import Field

from kubeproof import __version__
from kubeproof.results.base import ResultModel


class Machine(ResultModel):
    """The machine the harness ran on (no host name: results are shared)."""

    os: str = Field("", description="Operating system and release, e.g. `Linux 6.1.0`.")
    arch: str = Field("", description="CPU architecture, e.g. `x86_64`.")
    cpus: int | None = Field(None, description="Logical CPUs.")
    python: str = Field("", description="Python version.")


class AgentRecord(ResultModel):
    """The agent as it was configured (never a key or a header value)."""

    OMIT_IF_NONE: ClassVar[frozenset[str]] = frozenset({"model", "parameters"})

    spec: str = Field("", description="The spec as written, e.g. `llm:openai/gpt-4o-mini`.")
    kind: str = Field("", description="oracle, noop, replay, script, llm, anthropic, cli …")
    label: str = Field("", description="Its label in the run (directory name, tables).")
    model: str | None = Field(None, description="Model agents: the model's name.")
    parameters: dict[str, Any] | None = Field(
        None, description="Model agents: sampling, budgets and protocol; CLI agents: command."
    )


class Versions(ResultModel):
    """Reproducibility: what the result was produced with."""

    OMIT_IF_NONE: ClassVar[frozenset[str]] = frozenset({"task_digest", "agent"})

    kubeproof: str = Field("", description="kubeproof's version.")
    git_commit: str | None = Field(None, description="The commit of kubeproof's code, if known.")
    git_dirty: bool | None = Field(
        None, description="Whether the code differed from that commit (uncommitted changes)."
    )
    kubernetes: str | None = Field(None, description="The Kubernetes release of the control plane.")
    timing: str | None = Field(
        None, description="The simulated kubelet's timing profile (`real` or `fast`)."
    )
    machine: Machine = Field(default_factory=Machine, description="Where the harness ran.")
    seed: int | None = Field(
        None, description="The seed the agent's model was given, if any (sampling is random)."
    )
    task_digest: str | None = Field(
        None, description="SHA-256 over the task directory's paths and contents (trials)."
    )
    agent: AgentRecord | None = Field(None, description="The agent (trials).")


def git_commit() -> tuple[str | None, bool | None]:
    """The commit kubeproof's code is checked out at, and whether that code differs from
    it (None, None outside a git checkout)."""
    here = Path(__file__).resolve().parents[1]

    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(
                ["git", "-C", str(here), *args],
                capture_output=True,
                text=True,
                timeout=10,
                check=True,
            )
        except (OSError, subprocess.SubprocessError):
            return None
        return done.stdout.strip()

    commit = git("rev-parse", "HEAD")
    return commit, (bool(git("status", "--porcelain", "--", ".")) if commit else None)


def task_digest(root: Path) -> str:
    """A hash of everything in a task's directory (paths and contents), so any edit to the
    task, its manifests, oracle, verifier, shortcuts or alternatives changes it."""
    h = hashlib.sha256()
    for path in sorted(Path(root).rglob("*")):
        if not path.is_file() or "__pycache__" in path.parts:
            continue
        h.update(path.relative_to(root).as_posix().encode() + b"\0")
        h.update(hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()


def _kubernetes() -> str | None:
    try:
        from kubeproof.cluster.versions import versions

        return versions().kubernetes
    except Exception:  # no controlplane/ modules next to the package: not known
        return None


@cache
def harness() -> Versions:
    """What this process runs: kubeproof, its commit, Kubernetes, the machine."""
    commit, dirty = git_commit()
    return Versions(
        kubeproof=__version__,
        git_commit=commit,
        git_dirty=dirty,
        kubernetes=_kubernetes(),
        machine=Machine(
            os=f"{platform.system()} {platform.release()}",
            arch=platform.machine(),
            cpus=os.cpu_count(),
            python=sys.version.split()[0],
        ),
    )


def agent_record(spec: Any) -> AgentRecord:
    """An agents/spec.py AgentSpec as results may hold it: the model's public config
    (no key, header names only), a CLI agent's command and options."""
    model, parameters = None, None
    if getattr(spec, "llm", None) is not None:
        model, parameters = spec.llm.model, spec.llm.public()
    elif getattr(spec, "cli", None) is not None:
        parameters = spec.cli.model_dump(mode="json")
    elif getattr(spec, "a2a", None) is not None:
        parameters = spec.a2a.model_dump(mode="json")
    return AgentRecord(
        spec=spec.spec, kind=spec.kind, label=spec.label, model=model, parameters=parameters
    )


def for_trial(spec: Any, task_root: Path, timing: str | None) -> Versions:
    """The harness's versions with the trial's task, agent, seed and timing profile."""
    agent = agent_record(spec)
    seed = (agent.parameters or {}).get("seed") if agent.model else None
    return harness().model_copy(
        update={
            "task_digest": task_digest(task_root),
            "agent": agent,
            "seed": seed,
            "timing": timing,
        }
    )
