"""Two agents on the same tasks: is one really better?

- McNemar's exact test (what statsmodels' `mcnemar(exact=True)` computes: a two-sided
  binomial test on the tasks where the two disagree, the binomial CDF from scipy.special):
  only those tasks say anything about which agent is better; the test asks whether the
  split between "only A passed" and "only B passed" could be a fair coin's.
- A paired bootstrap (what scipy's `bootstrap(paired=True, method="percentile")` computes,
  seeded so a report is reproducible) of the difference in mean per-task score B - A: how
  large the difference is, with its 95 % interval, resampling tasks.
- Holm's correction (statsmodels' `multipletests(method="holm")`) over the slices (track,
  area, difficulty, tag): with many slices one of them looks "significant" by chance; Holm
  keeps the chance of any false alarm among them at 5 %.

Why not those functions themselves: importing scipy.stats and statsmodels costs ~2 s of
CPU, more than the rest of a report's statistics, and scipy's general bootstrap ~1.7 ms
per task and slice where the numpy one here needs a twentieth of that. Each is checked
against the library's own in tests/results/test_stats.py.

With repeats, a task counts as passed by an agent when at least half its judged trials
passed (McNemar needs one yes/no per task); the bootstrap uses the per-task pass rates.
"""

from collections import defaultdict

import numpy as np
from pydantic import BaseModel, Field

from kubeproof.results.stats.outcome import Outcome

ALPHA = 0.05
RESAMPLES = 10_000
BOOTSTRAP_CELLS = 1 << 21  # tasks x resamples drawn at once (16 MiB of indices)


class Paired(BaseModel):
    """A and B on the tasks both were judged on (all of them, or one slice)."""

    slice: str = Field(description="`all`, `track`, `area`, `difficulty` or `tag`.")
    value: str = Field(description="The slice's value.")
    tasks: int = Field(description="Tasks both agents were judged on.")
    a_passed: int = Field(description="Tasks A passed.")
    b_passed: int = Field(description="Tasks B passed.")
    only_a: int = Field(description="Tasks A passed and B did not.")
    only_b: int = Field(description="Tasks B passed and A did not.")
    p_value: float = Field(description="McNemar's exact test, two-sided.")
    p_holm: float | None = Field(
        None, description="Slices: p adjusted by Holm over every slice compared."
    )
    difference: float | None = Field(description="Mean per-task score, B - A.")
    ci_low: float | None = Field(description="Paired bootstrap 95 % interval, lower bound.")
    ci_high: float | None = Field(description="Paired bootstrap 95 % interval, upper bound.")


class Comparison(BaseModel):
    a: str = Field(description="Agent A (the baseline): `RUN/AGENT`.")
    b: str = Field(description="Agent B: `RUN/AGENT`.")
    overall: Paired = Field(description="Every task both were judged on.")
    slices: list[Paired] = Field(description="Per slice, with Holm-adjusted p-values.")
    only_in_a: list[str] = Field(description="Tasks judged for A only: left out.")
    only_in_b: list[str] = Field(description="Tasks judged for B only: left out.")
    warnings: list[str] = Field(default_factory=list, description="Why not to trust it.")
    verdict: str = Field(description="The result in one sentence.")
    seed: int = Field(description="The bootstrap's seed.")


def _per_task(outcomes: list[Outcome]) -> dict[str, float]:
    scores: dict[str, list[int]] = defaultdict(list)
    for o in outcomes:
        if o.judged:
            scores[o.task].append(o.score)
    return {task: sum(s) / len(s) for task, s in scores.items()}


def mcnemar_p(only_a: int, only_b: int) -> float:
    """Twice the binomial(n, 1/2) CDF at the smaller count, at most 1 (statsmodels'
    `mcnemar(exact=True)`)."""
    # imported when used: every `kubeproof` command imports this package through the CLI
    from scipy.special import bdtr

    if only_a + only_b == 0:
        return 1.0  # they never disagree: nothing tells them apart
    return min(1.0, 2.0 * float(bdtr(min(only_a, only_b), only_a + only_b, 0.5)))


def bootstrap_interval(differences: np.ndarray, seed: int) -> tuple[float, float]:
    """The percentile 95 % interval of the mean of `differences` (one per task) over
    RESAMPLES resamples of the tasks with replacement."""
    rng = np.random.default_rng(seed)
    n = len(differences)
    means = np.empty(RESAMPLES)
    batch = max(1, BOOTSTRAP_CELLS // n)  # resamples drawn at once: memory stays bounded
    for start in range(0, RESAMPLES, batch):
        stop = min(RESAMPLES, start + batch)
        picks = rng.integers(0, n, size=(stop - start, n))
        means[start:stop] = differences[picks].mean(axis=1)
    low, high = np.percentile(means, [100 * ALPHA / 2, 100 * (1 - ALPHA / 2)])
    return round(float(low), 6), round(float(high), 6)


def holm(p_values: list[float]) -> list[float]:
    """Holm's step-down adjusted p-values: the i-th smallest times (m - i), never below the
    one before it, at most 1 (statsmodels' `multipletests(method="holm")`)."""
    m = len(p_values)
    adjusted = [0.0] * m
    running = 0.0
    for rank, index in enumerate(sorted(range(m), key=lambda i: p_values[i])):
        running = max(running, min(1.0, (m - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted


def paired(slice_: str, value: str, a: dict[str, float], b: dict[str, float], seed: int) -> Paired:
    tasks = sorted(a.keys() & b.keys())
    a_pass = {t: a[t] >= 0.5 for t in tasks}
    b_pass = {t: b[t] >= 0.5 for t in tasks}
    only_a = sum(a_pass[t] and not b_pass[t] for t in tasks)
    only_b = sum(b_pass[t] and not a_pass[t] for t in tasks)
    diff = low = high = None
    if tasks:
        xa, xb = np.array([a[t] for t in tasks]), np.array([b[t] for t in tasks])
        diff = round(float(np.mean(xb - xa)), 6)
        if len(tasks) > 1:
            if np.all(xb - xa == xb[0] - xa[0]):  # every task the same: no spread to resample
                low = high = diff
            else:
                low, high = bootstrap_interval(xb - xa, seed)
    return Paired(
        slice=slice_,
        value=value,
        tasks=len(tasks),
        a_passed=sum(a_pass.values()),
        b_passed=sum(b_pass.values()),
        only_a=only_a,
        only_b=only_b,
        p_value=mcnemar_p(only_a, only_b),
        p_holm=None,
        difference=diff,
        ci_low=low,
        ci_high=high,
    )


def _p(p: float) -> str:
    return "p < 0.001" if p < 0.001 else f"p = {p:.2g}"


def verdict(a: str, b: str, result: Paired) -> str:
    if result.tasks == 0:
        return f"{a} and {b} share no judged task: nothing to compare"
    more = result.only_b - result.only_a
    if more == 0:
        said = f"{b} and {a} solve as many tasks ({result.b_passed} of {result.tasks})"
    else:
        n = abs(more)
        said = (
            f"{b} solves {n} {'more' if more > 0 else 'fewer'} task{'s' if n != 1 else ''} "
            f"than {a} ({result.b_passed} vs {result.a_passed} of {result.tasks})"
        )
    if more == 0:
        judged = "no difference shown"
    elif result.p_value < ALPHA:
        judged = "the difference is real at 5 %"
    else:
        judged = "the difference could be chance (not significant at 5 %)"
    return f"{said}; {_p(result.p_value)}; {judged}"


def compare(
    a_name: str,
    a: list[Outcome],
    b_name: str,
    b: list[Outcome],
    seed: int = 0,
) -> Comparison:
    """B against A on the tasks both were judged on, overall and per slice."""
    a_tasks, b_tasks = _per_task(a), _per_task(b)
    overall = paired("all", "all", a_tasks, b_tasks, seed)
    kinds: dict[tuple[str, str], set[str]] = defaultdict(set)
    for o in [*a, *b]:
        for key in o.slices()[1:]:
            kinds[key].add(o.task)
    slices = []
    for (slice_, value), tasks in sorted(kinds.items()):
        sa = {t: s for t, s in a_tasks.items() if t in tasks}
        sb = {t: s for t, s in b_tasks.items() if t in tasks}
        if sa.keys() & sb.keys():
            slices.append(paired(slice_, value, sa, sb, seed))
    for s, p in zip(slices, holm([s.p_value for s in slices]), strict=True):
        s.p_holm = p
    return Comparison(
        a=a_name,
        b=b_name,
        overall=overall,
        slices=slices,
        only_in_a=sorted(a_tasks.keys() - b_tasks.keys()),
        only_in_b=sorted(b_tasks.keys() - a_tasks.keys()),
        warnings=_warnings(a, b),
        verdict=verdict(a_name, b_name, overall),
        seed=seed,
    )


def _warnings(a: list[Outcome], b: list[Outcome]) -> list[str]:
    out = []
    digests_a = {o.task: o.task_digest for o in a if o.task_digest}
    digests_b = {o.task: o.task_digest for o in b if o.task_digest}
    changed = sorted(t for t in digests_a.keys() & digests_b.keys() if digests_a[t] != digests_b[t])
    if changed:
        out.append(
            f"{len(changed)} task(s) changed between the two runs (task digest differs): "
            + ", ".join(changed[:5])
            + (" …" if len(changed) > 5 else "")
        )
    for name, found in (("A", a), ("B", b)):
        errors = sum(not o.judged for o in found)
        if errors:
            out.append(f"{name}: {errors} trial(s) not judged (error or invalid), left out")
    return out
