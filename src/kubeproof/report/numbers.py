"""The numbers of the report, from `kubeproof.results.stats` (the same functions as
`kubeproof runs show|compare`, so the report and the terminal never disagree): rates with
Wilson intervals per agent and slice, and the paired comparison of two agents."""

from kubeproof.report.view import Site, TrialView
from kubeproof.results.stats import Comparison, Outcome, Rates, compare, table

SEED = 0  # the bootstrap's seed: the same report twice shows the same intervals


def outcome(trial: TrialView) -> Outcome:
    r = trial.result
    tokens = r.usage.tokens_in + r.usage.tokens_out if r.usage else None
    return Outcome(
        task=r.task,
        agent=trial.agent,
        repeat=r.repeat,
        track=r.track,
        area=r.area,
        difficulty=r.difficulty,
        tags=list(r.tags or []),
        verdict=r.verdict,
        score=r.score,
        safe=r.safe,
        steps=r.steps,
        seconds=r.timings.total,
        tokens=tokens,
        cost_usd=r.usage.cost_usd if r.usage else None,
        task_digest=r.versions.task_digest if r.versions else None,
    )


def outcomes(site: Site) -> dict[str, list[Outcome]]:
    """Per agent key, its trials as the statistics see them."""
    found: dict[str, list[Outcome]] = {a: [] for a in site.agents}
    for trial in site.trials:
        found[trial.agent].append(outcome(trial))
    return found


def rates(site: Site) -> list[Rates]:
    """One row per agent and slice (`all`, track, area, difficulty, tag); never across
    agents."""
    return table([o for found in outcomes(site).values() for o in found])


def comparison(site: Site, a: str, b: str) -> Comparison:
    """B against A on the tasks both were judged on: McNemar's exact p, the paired bootstrap
    95 % interval of the difference, Holm-adjusted slices."""
    found = outcomes(site)
    return compare(a, found[a], b, found[b], seed=SEED)
