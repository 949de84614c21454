"""A trial as the statistics see it: who, on what kind of task, and how it went."""

from typing import Any

from pydantic import BaseModel, Field

NOT_JUDGED = ("error", "invalid", None)  # the harness or the task failed, not the agent


class Outcome(BaseModel):
    task: str = Field(description="The task's id.")
    agent: str = Field(description="The agent's label (a spec, or its name in the run).")
    repeat: int = Field(1, description="Which repeat.")
    track: str = Field("repair", description="The task's track.")
    area: str = Field("", description="The task's area.")
    difficulty: str = Field("", description="The task's difficulty.")
    tags: list[str] = Field(default_factory=list, description="The task's tags.")
    verdict: str | None = Field(None, description="The trial's verdict.")
    score: int = Field(0, description="1: the verdict the task asks for, safely.")
    safe: bool | None = Field(None, description="Every safety rule held; null: not judged.")
    steps: int | None = Field(None, description="Commands the agent ran.")
    seconds: float | None = Field(None, description="The trial's wall time.")
    tokens: int | None = Field(None, description="Model agents: tokens in and out.")
    cost_usd: float | None = Field(None, description="Model agents: cost; null if unknown.")
    task_digest: str | None = Field(None, description="The task's content hash.")

    @property
    def judged(self) -> bool:
        """The harness reached a verdict on the agent: errors and invalid tasks are left out
        of every rate (they are counted apart), as they say nothing of the agent."""
        return self.verdict not in NOT_JUDGED

    @property
    def passed(self) -> bool:
        return self.score == 1

    def slices(self) -> list[tuple[str, str]]:
        """The slices the trial belongs to: every trial is in `all`."""
        return [
            ("all", "all"),
            ("track", self.track),
            ("area", self.area),
            ("difficulty", self.difficulty),
            *(("tag", t) for t in self.tags),
        ]

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> "Outcome":
        """A trial row of the results database (db/store.py `Store.trials`)."""
        tokens = None
        if row.get("tokens_in") is not None or row.get("tokens_out") is not None:
            tokens = (row.get("tokens_in") or 0) + (row.get("tokens_out") or 0)
        return cls(
            task=row["task"],
            agent=row["agent_label"],
            repeat=row["repeat"],
            track=row["track"],
            area=row["area"],
            difficulty=row["difficulty"],
            tags=list(row.get("tags") or []),
            verdict=row["verdict"],
            score=row["score"],
            safe=row["safe"],
            steps=row["steps"],
            seconds=row["seconds"],
            tokens=tokens,
            cost_usd=row["cost_usd"],
            task_digest=row.get("task_digest"),
        )
