"""What the generate track's optional LLM judge (S5) said, per agent: how many answers it
scored, how often it failed (its reply refused or its endpoint down: Tu absent), and each
kind of flag it raised, counted (docs/generate.md, "S5"). Flags add to the report; they
never change a stage's verdict, so they are shown apart from the scores.
"""

from collections.abc import Iterable

from pydantic import BaseModel, Field

from kubeproof.results.trial import TrialResult


class FlagRow(BaseModel):
    """One agent's answers as the judge saw them."""

    agent: str = Field(description="The agent (its key in a report of several runs).")
    asked: int = Field(0, description="Answers the judge was asked about (not skipped).")
    judged: int = Field(0, description="Answers it scored (Tu present).")
    failed: int = Field(0, description="Answers it failed on: Tu absent, never imputed.")
    flagged: int = Field(0, description="Scored answers with at least one flag.")
    codes: dict[str, int] = Field(
        default_factory=dict, description="Per flag code, how many times it was raised."
    )


class JudgeFlags(BaseModel):
    rows: list[FlagRow] = Field(description="Per agent that a judge reviewed, in input order.")
    codes: list[str] = Field(description="Every flag code raised, most raised first.")


def judge_flags(records: Iterable[tuple[str, TrialResult]]) -> JudgeFlags | None:
    """The judge's table over (agent key, trial) pairs; None when no judge was asked about
    any answer."""
    rows: dict[str, FlagRow] = {}
    totals: dict[str, int] = {}
    for agent, r in records:
        judge = r.generate.judge if r.generate is not None else None
        if judge is None or judge.status == "skipped":
            continue
        row = rows.get(agent)
        if row is None:
            row = rows[agent] = FlagRow(agent=agent)
        row.asked += 1
        if judge.status == "failed":
            row.failed += 1
            continue
        row.judged += 1
        row.flagged += bool(judge.flags)
        for flag in judge.flags:
            code = flag.code or "(no code)"
            row.codes[code] = row.codes.get(code, 0) + 1
            totals[code] = totals.get(code, 0) + 1
    if not rows:
        return None
    return JudgeFlags(rows=list(rows.values()), codes=sorted(totals, key=lambda c: (-totals[c], c)))
