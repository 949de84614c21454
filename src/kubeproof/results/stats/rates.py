"""Per agent and per slice (track, area, difficulty, tag): how often it passed, how sure we
are of that, and what it cost.

A pass rate comes with a Wilson score interval (what statsmodels' `proportion_confint`
computes with method="wilson"; the normal quantile from scipy.special, whose import costs a
fraction of statsmodels'): unlike the normal approximation it stays inside [0, 1] and keeps close
to its 95 % coverage with few trials and rates near 0 or 1, which is where benchmark
results live. Rows are per agent, never averaged across agents.
"""

from collections import defaultdict
from math import sqrt
from statistics import fmean

from pydantic import BaseModel, Field

from kubeproof.results.stats import passk
from kubeproof.results.stats.outcome import Outcome

LEVEL = 0.95


class PassK(BaseModel):
    k: int = Field(description="Trials drawn per task.")
    pass_at_k: float = Field(description="Chance at least one of k trials passes (unbiased).")
    pass_hat_k: float = Field(description="Chance all k trials pass (unbiased).")


class Rates(BaseModel):
    """One agent on one slice of the tasks."""

    agent: str = Field(description="The agent's label.")
    slice: str = Field(description="`all`, `track`, `area`, `difficulty` or `tag`.")
    value: str = Field(description="The slice's value (`all` for every task).")
    trials: int = Field(description="Trials, judged or not.")
    tasks: int = Field(description="Distinct tasks judged.")
    errors: int = Field(description="Trials not judged (`error`, `invalid`): left out below.")
    judged: int = Field(description="Trials judged: the denominator of every rate.")
    passed: int = Field(description="Judged trials that scored 1.")
    pass_rate: float | None = Field(description="passed / judged; null when none judged.")
    ci_low: float | None = Field(description="Wilson 95 % interval, lower bound.")
    ci_high: float | None = Field(description="Wilson 95 % interval, upper bound.")
    mean_score: float | None = Field(description="Mean score of judged trials.")
    safe_rate: float | None = Field(description="Share of judged trials that were safe.")
    steps: float | None = Field(description="Mean commands per judged trial.")
    seconds: float | None = Field(description="Mean wall seconds per judged trial.")
    tokens: float | None = Field(description="Mean tokens per trial (model agents).")
    cost_usd: float | None = Field(
        description="Total cost; null if no trial had a price, or any trial's was unknown."
    )
    pass_k: list[PassK] = Field(
        default_factory=list, description="pass@k and pass^k when tasks were repeated."
    )


def _mean(values: list[float | int | None]) -> float | None:
    known = [v for v in values if v is not None]
    return round(fmean(known), 6) if known else None


def _total(costs: list[float | None]) -> float | None:
    """The cost of model trials; unknown if any one's price is."""
    known = [c for c in costs if c is not None]
    return round(sum(known), 6) if costs and len(known) == len(costs) else None


def wilson(passed: int, n: int) -> tuple[float, float]:
    from scipy.special import ndtri  # imported when used: not by every command

    z = float(ndtri(1 - (1 - LEVEL) / 2))
    p = passed / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return round(centre - half, 6), round(centre + half, 6)


def mean_interval(
    values: list[int] | list[float], low: float, high: float
) -> tuple[float, float] | None:
    """The Student t 95 % interval of the mean of `values` (scipy's `t.interval` around the
    mean with the standard error), kept within [low, high], where the mean must lie (a
    count's mean is never below 0 nor above its cap); none for fewer than two values."""
    from scipy.special import stdtrit  # imported when used: not by every command

    n = len(values)
    if n < 2:
        return None
    mean = fmean(values)
    spread = sqrt(sum((v - mean) ** 2 for v in values) / (n - 1) / n)
    half = float(stdtrit(n - 1, 1 - (1 - LEVEL) / 2)) * spread
    return round(float(max(low, mean - half)), 6), round(float(min(high, mean + half)), 6)


def rates_of(agent: str, slice_: str, value: str, found: list[Outcome]) -> Rates:
    judged = [o for o in found if o.judged]
    passed = sum(o.passed for o in judged)
    low, high = wilson(passed, len(judged)) if judged else (None, None)
    costs = [o.cost_usd for o in found if o.tokens is not None]
    per_task: dict[str, list[bool]] = defaultdict(list)
    for o in judged:
        per_task[o.task].append(o.passed)
    curve = passk.over_tasks([(len(v), sum(v)) for v in per_task.values()])
    return Rates(
        agent=agent,
        slice=slice_,
        value=value,
        trials=len(found),
        tasks=len(per_task),
        errors=len(found) - len(judged),
        judged=len(judged),
        passed=passed,
        pass_rate=round(passed / len(judged), 6) if judged else None,
        ci_low=low,
        ci_high=high,
        mean_score=_mean([o.score for o in judged]),
        safe_rate=_mean([o.safe for o in judged if o.safe is not None]),
        steps=_mean([o.steps for o in judged]),
        seconds=_mean([o.seconds for o in judged]),
        tokens=_mean([o.tokens for o in found]),
        cost_usd=_total(costs),
        pass_k=[
            PassK(k=k, pass_at_k=round(a, 6), pass_hat_k=round(h, 6)) for k, (a, h) in curve.items()
        ],
    )


def table(outcomes: list[Outcome]) -> list[Rates]:
    """Rates for every agent and every slice it has trials in, sorted."""
    groups: dict[tuple[str, str, str], list[Outcome]] = defaultdict(list)
    for o in outcomes:
        for slice_, value in o.slices():
            groups[(o.agent, slice_, value)].append(o)
    order = {"all": 0, "track": 1, "area": 2, "difficulty": 3, "tag": 4}
    keys = sorted(groups, key=lambda k: (k[0], order[k[1]], k[2]))
    return [rates_of(*key, groups[key]) for key in keys]
