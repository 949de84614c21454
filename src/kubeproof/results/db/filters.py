"""Which trials a command looks at (`--where FIELD=VALUE`: agent, task, track, area,
difficulty, tag, verdict), as SQL conditions on the trial columns."""

import sqlalchemy as sa
from pydantic import BaseModel, Field

from kubeproof.errors import KubeproofError
from kubeproof.results.db.schema import trial_tags, trials


class TrialFilter(BaseModel):
    """Every condition given must hold; a task pattern takes `*` as a wildcard."""

    agent: str | None = Field(None, description="The agent's label.")
    task: str | None = Field(None, description="Task id, or a pattern with `*`.")
    track: str | None = Field(None, description="The task's track.")
    area: str | None = Field(None, description="The task's area.")
    difficulty: str | None = Field(None, description="The task's difficulty.")
    tag: str | None = Field(None, description="A tag the task carries.")
    verdict: str | None = Field(None, description="The trial's verdict.")

    @classmethod
    def parse(cls, where: list[str] | None) -> "TrialFilter":
        """`FIELD=VALUE` conditions, as `--where` takes them."""
        values: dict[str, str] = {}
        for condition in where or []:
            field, sep, value = condition.partition("=")
            if not sep or field not in cls.model_fields or not value:
                raise KubeproofError(
                    f"--where {condition!r}: expected FIELD=VALUE, FIELD one of "
                    + ", ".join(cls.model_fields)
                )
            if field in values:
                raise KubeproofError(f"--where names {field} twice")
            values[field] = value
        return cls(**values)

    def conditions(self) -> list[sa.ColumnElement[bool]]:
        found: list[sa.ColumnElement[bool]] = []
        for column in ("agent", "track", "area", "difficulty", "verdict"):
            value = getattr(self, column)
            if value is not None:
                name = "agent_label" if column == "agent" else column
                found.append(trials.c[name] == value)
        if self.task is not None:
            escaped = self.task.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            found.append(trials.c.task.like(escaped.replace("*", "%"), escape="\\"))
        if self.tag is not None:
            tagged = sa.select(trial_tags.c.trial_id).where(trial_tags.c.tag == self.tag)
            found.append(trials.c.id.in_(tagged))
        return found
