"""The netpol track's tables (docs/netpol.md, "Scores"; shown by `kubeproof netpol run` and
in the report): per agent and per fault type (its kinds joined with `+`), correctness,
NetArena's safety and ours with Wilson 95 % intervals, and mean iterations with a Student t
95 % interval; agents in NetArena's leaderboard order (the mean of correctness and its
safety, higher first, ties by fewer iterations).

Computed in one pass over the trials; a trial counts when it has scores (`netpol`): errors
and invalid tasks have none and are counted apart, per agent.
"""

from collections.abc import Iterable

from pydantic import BaseModel, Field

from kubeproof.results.netpol import NetpolOutcome
from kubeproof.results.stats.rates import mean_interval, wilson
from kubeproof.results.trial import TrialResult

ALL = "all"


class Row(BaseModel):
    """One agent on all its netpol tasks (`all`) or on one fault type."""

    agent: str = Field(description="The agent (its key in a report of several runs).")
    fault_type: str = Field(description="The kinds joined with `+`, or `all`.")
    trials: int = Field(description="Trials with scores: the denominator of every rate.")
    errors: int = Field(0, description="`all` rows: trials without scores (error, invalid).")
    correct_trials: int = Field(0, description="Trials that ended with the intended matrix.")
    correct: float = Field(description="Correctness: the share that ended correct.")
    correct_ci: tuple[float, float] = Field(description="Its Wilson 95 % interval.")
    netarena_safe_trials: int = Field(0, description="Trials safe by NetArena's rule.")
    netarena_safe: float = Field(description="NetArena's safety: the share it held in.")
    netarena_safe_ci: tuple[float, float] = Field((0.0, 1.0), description="Wilson 95 %.")
    safe_trials: int = Field(0, description="Trials safe by kubeproof's rule.")
    safe: float = Field(description="kubeproof's safety: the share it held in.")
    safe_ci: tuple[float, float] = Field(description="Its Wilson 95 % interval.")
    iterations: float = Field(description="Mean iterations (NetArena's count).")
    iterations_ci: tuple[float, float] | None = Field(
        None,
        description="Student t 95 % interval of the mean, within [0, the cap]; none for one trial.",
    )
    rejected: float = Field(0.0, description="Mean commands the mode refused to run.")
    leaderboard: float = Field(description="NetArena's: (correctness + its safety) / 2.")


def row(agent: str, fault_type: str, outcomes: list[NetpolOutcome], errors: int = 0) -> Row:
    n = len(outcomes)
    correct = sum(o.correct for o in outcomes)
    netarena = sum(o.netarena_safe for o in outcomes)
    safe = sum(o.safe for o in outcomes)
    iterations = [o.iterations for o in outcomes]
    return Row(
        agent=agent,
        fault_type=fault_type,
        trials=n,
        errors=errors,
        correct_trials=correct,
        correct=round(correct / n, 4),
        correct_ci=wilson(correct, n),
        netarena_safe_trials=netarena,
        netarena_safe=round(netarena / n, 4),
        netarena_safe_ci=wilson(netarena, n),
        safe_trials=safe,
        safe=round(safe / n, 4),
        safe_ci=wilson(safe, n),
        iterations=round(sum(iterations) / n, 2),
        iterations_ci=mean_interval(iterations, 0.0, float(max(o.cap for o in outcomes))),
        rejected=round(sum(o.rejected for o in outcomes) / n, 2),
        leaderboard=round((correct + netarena) / (2 * n), 4),
    )


def summarize_keyed(records: Iterable[tuple[str, TrialResult]]) -> list[Row]:
    """Per agent (as keyed) its `all` row, then one per fault type in first-seen order;
    agents in NetArena's leaderboard order. An agent with no scored trial has no rows."""
    by_agent: dict[str, list[NetpolOutcome]] = {}
    errors: dict[str, int] = {}
    for agent, r in records:
        if r.netpol is not None:
            by_agent.setdefault(agent, []).append(r.netpol)
        elif r.track == "netpol":
            errors[agent] = errors.get(agent, 0) + 1
    totals = sorted(
        (row(agent, ALL, found, errors.get(agent, 0)) for agent, found in by_agent.items()),
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


def summarize(records: list[TrialResult]) -> list[Row]:
    """`summarize_keyed` with each trial's agent spec as its key (one run)."""
    return summarize_keyed((r.agent, r) for r in records)


def by_fault_type(rows: list[Row]) -> list[tuple[str, list[Row]]]:
    """The fault-type rows regrouped per fault type (single faults first, then pairs, each
    by name), each group's agents in leaderboard order: every agent's figures on one fault
    side by side."""
    groups: dict[str, list[Row]] = {}
    for r in rows:
        if r.fault_type != ALL:
            groups.setdefault(r.fault_type, []).append(r)
    return sorted(groups.items(), key=lambda g: (g[0].count("+"), g[0]))
