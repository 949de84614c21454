"""A netpol run summarized as NetArena reports it and ours: per agent and per fault type
(its kinds joined with `+`), correctness, NetArena's safety, ours and mean iterations,
with Wilson 95 % intervals; agents in NetArena's leaderboard order (the mean of
correctness and its safety, higher first, ties by fewer iterations)."""

from pydantic import BaseModel, Field

from kubeproof.results import TrialResult
from kubeproof.results.netpol import NetpolOutcome
from kubeproof.results.stats.rates import wilson

ALL = "all"


class Row(BaseModel):
    agent: str
    fault_type: str = Field(description="The kinds joined with `+`, or `all`.")
    trials: int
    correct: float
    correct_ci: tuple[float, float]
    netarena_safe: float
    safe: float = Field(description="kubeproof's safety.")
    safe_ci: tuple[float, float]
    iterations: float
    leaderboard: float = Field(description="NetArena's: (correctness + its safety) / 2.")


def row(agent: str, fault_type: str, outcomes: list[NetpolOutcome]) -> Row:
    n = len(outcomes)
    correct = sum(o.correct for o in outcomes)
    netarena = sum(o.netarena_safe for o in outcomes)
    safe = sum(o.safe for o in outcomes)
    return Row(
        agent=agent,
        fault_type=fault_type,
        trials=n,
        correct=round(correct / n, 4),
        correct_ci=wilson(correct, n),
        netarena_safe=round(netarena / n, 4),
        safe=round(safe / n, 4),
        safe_ci=wilson(safe, n),
        iterations=round(sum(o.iterations for o in outcomes) / n, 2),
        leaderboard=round((correct + netarena) / (2 * n), 4),
    )


def summarize(records: list[TrialResult]) -> list[Row]:
    """Per agent its `all` row, then one per fault type in first-seen order; agents in
    NetArena's leaderboard order. Trials without scores (error, invalid) are left out."""
    by_agent: dict[str, list[NetpolOutcome]] = {}
    for r in records:
        if r.netpol is not None:
            by_agent.setdefault(r.agent, []).append(r.netpol)
    totals = sorted(
        (row(agent, ALL, found) for agent, found in by_agent.items()),
        key=lambda t: (-t.leaderboard, t.iterations),
    )
    rows = []
    for total in totals:
        rows.append(total)
        types: dict[str, list[NetpolOutcome]] = {}
        for o in by_agent[total.agent]:
            types.setdefault("+".join(o.faults), []).append(o)
        rows += [row(total.agent, t, found) for t, found in types.items()]
    return rows
