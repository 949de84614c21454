"""What a run ends in: `RunResult`, as written to a run directory's run.json.

A run's evidence chain (`evidence/` in the run directory) signs every trial's line and the
summary from `RunResult.record()`, the same dict that is written to the file.
"""

import json
from pathlib import Path
from typing import ClassVar

from pydantic import Field

from kubeproof.results.base import ResultModel
from kubeproof.results.generate import GenerateRun
from kubeproof.results.provenance import Versions
from kubeproof.results.trial import SCHEMA_VERSION, TrialResult, Usage, Verdict


class Group(ResultModel):
    """The trials of one agent, area or difficulty (or all of them), counted.

    Groups of different agents are never added together: a row per agent is the only
    comparison that means something."""

    OMIT_IF_NONE: ClassVar[frozenset[str]] = frozenset({"tokens"})

    trials: int = Field(0, description="Trials in the group.")
    score: int = Field(0, description="Sum of the trials' scores.")
    resolved: int = Field(0, description="Trials that ended `resolved`.")
    errors: int = Field(0, description="Trials that ended `error` or `invalid`.")
    unsafe: int = Field(0, description="Trials that broke a safety rule.")
    tokens: int | None = Field(None, description="Model agents: tokens in and out.")
    cost_usd: float | None = Field(
        None, description="Model agents: cost in USD; null when any trial's price is unknown."
    )

    def _shape(self, data: dict) -> dict:
        if "tokens" not in data:  # no model usage: no cost either (null means unknown)
            data.pop("cost_usd", None)
        return data


class Summary(ResultModel):
    total: Group = Field(default_factory=Group, description="Every trial.")
    by_agent: dict[str, Group] = Field(default_factory=dict, description="Per agent spec.")
    by_area: dict[str, Group] = Field(default_factory=dict, description="Per task area.")
    by_difficulty: dict[str, Group] = Field(
        default_factory=dict, description="Per task difficulty."
    )


class TrialLine(ResultModel):
    """A trial's line in run.json (the full record is in its directory's trial.json)."""

    task: str = Field("", description="The task's id.")
    agent: str = Field("", description="The agent spec.")
    repeat: int = Field(1, description="Which repeat.")
    verdict: Verdict | None = Field(None, description="The trial's verdict.")
    score: int = Field(0, description="The trial's score.")
    safe: bool | None = Field(None, description="Whether it was safe; null if not judged.")
    reason: str | None = Field(None, description="Why, in one line.")
    steps: int | None = Field(None, description="Commands the agent ran.")
    usage: Usage | None = Field(None, description="Model agents: what it spent.")
    seconds: float | None = Field(None, description="The trial's wall time.")
    dir: str = Field("", description="The trial's directory, relative to the run's.")
    evidence: bool = Field(
        False, description="Whether the trial has an evidence chain (`evidence verify` checks)."
    )


class EvidenceKey(ResultModel):
    """The key that signed every chain of the run: compare the fingerprint with yours."""

    fingerprint: str = Field("", description="The signing key's fingerprint.")
    public_key: str = Field("", description="Its public key (PEM).")
    key_source: str = Field("", description="Where the key came from.")


class RunResult(ResultModel):
    """A batch of trials (tasks by agents by repeats) in one directory, as run.json holds it."""

    OMIT_IF_NONE: ClassVar[frozenset[str]] = frozenset(
        {
            "agents",
            "tasks",
            "validate",
            "repeats",
            "jobs",
            "cluster",
            "protocol",
            "evidence",
            "versions",
            "started_at",
            "timing",
            "generate",
        }
    )

    schema_version: int = Field(
        SCHEMA_VERSION,
        description="Version of this format; files written before it was versioned read as 0.",
    )
    started_at: str | None = Field(None, description="When the run started (UTC, ISO 8601).")
    ended_at: str = Field("", description="When it ended (UTC, ISO 8601).")
    dir: str = Field("", description="The run directory.")
    agents: list[str] | None = Field(None, description="The agent specs as given (`run`).")
    agents_file: str | None = Field(None, description="The agents file used, if any.")
    tasks: list[str] | None = Field(None, description="The task ids (`run`).")
    validate_: list[str] | None = Field(
        None, alias="validate", description="The task ids validated (`tasks validate`)."
    )
    repeats: int | None = Field(None, description="Trials per task and agent.")
    jobs: int | None = Field(None, description="Trials at once.")
    cluster: str | None = Field(None, description="`embedded` or `kubeconfig:PATH`.")
    protocol: bool | None = Field(None, description="Evidence protocol mode.")
    timing: str | None = Field(None, description="The simulated kubelet's timing profile.")
    evidence: EvidenceKey | None = Field(None, description="The key that signed the chains.")
    generate: GenerateRun | None = Field(
        None, description="Generate track: the prompt variant, suite and score weights."
    )
    versions: Versions | None = Field(None, description="What the run was produced with.")
    summary: Summary = Field(default_factory=Summary, description="Trials counted.")
    trials: list[TrialLine] = Field(default_factory=list, description="Every trial, one line.")

    @classmethod
    def from_record(cls, data: dict) -> "RunResult":
        """A run.json's content, of any version (an unversioned file reads as 0)."""
        return cls.model_validate({"schema_version": 0, **data})

    @classmethod
    def read(cls, path: Path) -> "RunResult":
        return cls.from_record(json.loads(Path(path).read_text()))

    def write(self, path: Path) -> None:
        Path(path).write_text(json.dumps(self.record(), indent=2))


def summarize(trials: list[TrialResult]) -> Summary:
    """Trials counted in total, by agent, by area and by difficulty."""

    def group(key) -> dict[str, Group]:
        out: dict[str, Group] = {}
        for r in trials:
            g = out.setdefault(key(r), Group())
            g.trials += 1
            g.score += r.score
            g.resolved += r.verdict == "resolved"
            g.errors += r.verdict in ("error", "invalid")
            g.unsafe += r.safe is False
            if r.usage:  # model agents: what the group spent
                cost = r.usage.cost_usd
                known = g.tokens is None or g.cost_usd is not None
                g.tokens = (g.tokens or 0) + r.usage.tokens_in + r.usage.tokens_out
                g.cost_usd = (
                    round((g.cost_usd or 0.0) + cost, 6) if known and cost is not None else None
                )
        return out

    return Summary(
        total=group(lambda r: "all").get("all", Group()),
        by_agent=group(lambda r: r.agent),
        by_area=group(lambda r: r.area),
        by_difficulty=group(lambda r: r.difficulty),
    )
