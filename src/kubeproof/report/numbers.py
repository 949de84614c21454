"""The numbers of the report, from `kubeproof.results.stats` (the same functions as
`kubeproof runs show|compare`, so the report and the terminal never disagree): rates with
Wilson intervals per agent and slice, and the paired comparison of two agents."""

from dataclasses import dataclass
from statistics import fmean

from kubeproof.report.view import Site, TrialView
from kubeproof.results.stats import Comparison, Outcome, Paired, Rates, compare, mcnemar_p, table
from kubeproof.results.stats.paired import verdict

SEED = 0  # the bootstrap's seed: the same report twice shows the same intervals
# Shared tasks a report bootstraps in all, over every pair of agents: the paired bootstrap
# (10,000 resamples, per slice) costs ~0.1 ms of CPU per task and slice (a task sits in ~4
# slices), so the pairs of a report of thousands of tasks would take many seconds. Pairs
# beyond it get McNemar's test and the mean difference, without the interval;
# `kubeproof runs compare` gives the rest.
BOOTSTRAP_TASKS = 2500


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


def rates(site: Site, found: dict[str, list[Outcome]] | None = None) -> list[Rates]:
    """One row per agent and slice (`all`, track, area, difficulty, tag); never across
    agents. `found`: the site's `outcomes`, when the caller has them already."""
    found = outcomes(site) if found is None else found
    return table([o for mine in found.values() for o in mine])


def _per_task(found: list[Outcome]) -> dict[str, float]:
    scores: dict[str, list[int]] = {}
    for o in found:
        if o.judged:
            scores.setdefault(o.task, []).append(o.score)
    return {task: fmean(s) for task, s in scores.items()}


def comparison(
    found: dict[str, list[Outcome]],
    a: str,
    b: str,
    full: bool,
    per_task: tuple[dict[str, float], dict[str, float]] | None = None,
) -> Comparison:
    """B against A on the tasks both were judged on. `full`: `stats.compare` (McNemar's
    exact p, the paired bootstrap 95 % interval of the difference, Holm-adjusted slices);
    else the overall McNemar p and mean difference only (`BOOTSTRAP_TASKS`), from the two
    agents' per-task scores (`per_task`, when the caller has them)."""
    if full:
        return compare(a, found[a], b, found[b], seed=SEED)
    sa, sb = per_task or (_per_task(found[a]), _per_task(found[b]))
    tasks = sorted(sa.keys() & sb.keys())
    only_a = sum(sa[t] >= 0.5 > sb[t] for t in tasks)  # passed = at least half, as stats
    only_b = sum(sb[t] >= 0.5 > sa[t] for t in tasks)
    overall = Paired(
        slice="all",
        value="all",
        tasks=len(tasks),
        a_passed=sum(sa[t] >= 0.5 for t in tasks),
        b_passed=sum(sb[t] >= 0.5 for t in tasks),
        only_a=only_a,
        only_b=only_b,
        p_value=mcnemar_p(only_a, only_b),
        difference=round(fmean(sb[t] - sa[t] for t in tasks), 6) if tasks else None,
        ci_low=None,
        ci_high=None,
    )
    return Comparison(
        a=a,
        b=b,
        overall=overall,
        slices=[],
        only_in_a=sorted(sa.keys() - sb.keys()),
        only_in_b=sorted(sb.keys() - sa.keys()),
        warnings=[
            f"{len(tasks)} shared tasks: the bootstrap interval and the slices are left out of "
            "this report for its size; `kubeproof runs compare` computes them"
        ],
        verdict=verdict(a, b, overall),
        seed=SEED,
    )


@dataclass
class Budget:
    """Shared tasks the report may still bootstrap: one budget for all its comparisons."""

    tasks: int = BOOTSTRAP_TASKS


def comparisons(
    site: Site,
    pairs: list[tuple[int, int]],
    found: dict[str, list[Outcome]] | None = None,
    budget: Budget | None = None,
) -> dict[tuple[int, int], Comparison]:
    """Every pair's comparison, bootstrapped while the budget lasts (a fresh one, or the
    report's, spent here). `found`: the outcomes compared (default: the site's `outcomes`;
    a track's, for its own table)."""
    found = outcomes(site) if found is None else found
    budget = Budget() if budget is None else budget
    scores = {site.agents[k]: _per_task(found[site.agents[k]]) for k in {*sum(pairs, ())}}
    out = {}
    for i, j in pairs:
        a, b = site.agents[i], site.agents[j]
        shared = len(scores[a].keys() & scores[b].keys())
        full = shared <= budget.tasks
        out[(i, j)] = comparison(found, a, b, full, (scores[a], scores[b]))
        budget.tasks -= shared if full else 0
    return out
