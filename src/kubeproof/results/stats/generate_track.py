"""The generate track's tables (docs/generate.md, "Reports"; shown by `kubeproof generate
run` and in the report), per agent, never across agents:

- the leaderboard: Ev, Ov, Acc, strict pass with its Wilson 95 % interval, Tu (absent, never
  imputed, when no judge ran) and the composite P, a P with Tu apart from one without;
- strict pass by resource type and tier;
- the failure ladder: how many answers failed first at each stage, S0's categories apart;
- the RBAC table: under-grant and over-grant of the permission matrices, counted apart;
- prompt-variant robustness: one agent's strict pass on the same tasks asked in each variant.

Computed in one pass over the trials. A trial counts when it has a `generate` outcome (an
answer judged); a generate-track trial without one (the model or the judge failed) is an
error, counted apart.
"""

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from statistics import fmean

from pydantic import BaseModel, Field

from kubeproof.results.generate import GenerateOutcome, composite
from kubeproof.results.stats.paired import mcnemar_p
from kubeproof.results.stats.rates import wilson
from kubeproof.results.trial import TrialResult

STAGES = ("S0", "S1", "S2", "S3", "S4")
TIERS = ("easy", "intermediate", "advanced")
VARIANTS = ("full", "simplified", "terse")
# S0's failure categories (CloudEval's), the first word of its reason (generate/offline.py)
S0_CATEGORIES = ("empty", "no_kind", "invalid_yaml", "wrong_kind")
# The (resource type, tier) cells whose tasks carry a permission matrix (generate/templates:
# roles.py, bindings.py, scope.py; tests/results/test_track_stats.py holds them to it);
# None: every tier.
MATRIX_CELLS: dict[str, tuple[str, ...] | None] = {
    "role": None,
    "clusterrole": None,
    "rolebinding": None,
    "clusterrolebinding": None,
    "serviceaccount": ("advanced",),
}


def _ordered(values: Iterable[str], known: tuple[str, ...]) -> list[str]:
    """The known values in their order, then any other sorted."""
    found = set(values)
    return [v for v in known if v in found] + sorted(found - set(known))


def _rate(passed: int, n: int) -> tuple[float | None, tuple[float, float] | None]:
    return (round(passed / n, 6), wilson(passed, n)) if n else (None, None)


class Leader(BaseModel):
    """One agent's generate-track scores."""

    agent: str = Field(description="The agent (its key in a report of several runs).")
    trials: int = Field(description="Generate-track trials, errors included.")
    errors: int = Field(description="Trials without a judged answer (model or judge failed).")
    judged: int = Field(description="Answers judged: the denominator below.")
    ev: float | None = Field(description="Mean Ev: the share that applied (S2).")
    ov: float | None = Field(description="Mean Ov: the share with the expected objects (S3).")
    acc: float | None = Field(description="Mean Acc: the share whose typed checks held (S4).")
    strict: int = Field(description="Strict passes (S2, S3 and S4).")
    strict_rate: float | None = Field(description="Strict pass rate.")
    strict_ci: tuple[float, float] | None = Field(description="Its Wilson 95 % interval.")
    tu: float | None = Field(description="Mean Tu over the answers a judge scored; absent: none.")
    tu_judged: int = Field(description="Answers a judge scored (Tu present).")
    p: float | None = Field(description="Mean P over Ev and Ov, of every answer judged.")
    p_tu: float | None = Field(description="Mean P over the answers with Tu (Ev, Ov, Tu).")
    unsafe: int = Field(description="Answers that tainted the cluster.")


class Cell(BaseModel):
    """Strict pass of one agent on one resource type and tier (`all` for a total)."""

    agent: str = Field(description="The agent.")
    type: str = Field(description="The resource type, or `all`.")
    tier: str = Field(description="The tier, or `all`.")
    judged: int = Field(description="Answers judged.")
    strict: int = Field(description="Strict passes.")
    rate: float | None = Field(description="strict / judged.")


class Ladder(BaseModel):
    """Where one agent's answers failed first."""

    agent: str = Field(description="The agent.")
    judged: int = Field(description="Answers judged.")
    failed_at: dict[str, int] = Field(description="Answers per first failing stage, S0..S4.")
    s0: dict[str, int] = Field(description="S0's failures by CloudEval's category.")
    passed: int = Field(description="Answers that failed no stage (strict pass).")


class Grants(BaseModel):
    """One agent's permission matrices on one resource type (`all`: every type)."""

    agent: str = Field(description="The agent.")
    type: str = Field(description="The resource type, or `all`.")
    judged: int = Field(description="Answers judged on tasks with a matrix.")
    reached: int = Field(description="Answers whose matrix was asked (S4 ran).")
    exact: int = Field(description="Matrices answered exactly: no cell under or over.")
    under: int = Field(description="Answers with a cell asked for but denied.")
    over: int = Field(description="Answers with a cell to deny but allowed.")
    over_rate: float | None = Field(description="over / reached.")
    over_ci: tuple[float, float] | None = Field(description="Its Wilson 95 % interval.")
    cells_under: int = Field(description="Cells under-granted, in all.")
    cells_over: int = Field(description="Cells over-granted, in all.")


class Variant(BaseModel):
    """One agent on one prompt variant, over the tasks asked in every variant it has."""

    variant: str = Field(description="`full`, `simplified` or `terse`.")
    strict: int = Field(description="Tasks passed (at least half its trials strict).")
    rate: float | None = Field(description="strict / the shared tasks.")
    ci: tuple[float, float] | None = Field(description="Its Wilson 95 % interval.")
    only_first: int = Field(description="Tasks passed in the first variant and not in this.")
    only_this: int = Field(description="Tasks passed in this variant and not in the first.")
    p_value: float = Field(description="McNemar's exact p against the first variant.")


class Robustness(BaseModel):
    """One agent (its spec, across runs) asked the same tasks in several prompt variants."""

    agent: str = Field(description="The agent spec, as the runs name it.")
    tasks: int = Field(description="Tasks judged in every variant the agent has.")
    variants: list[Variant] = Field(description="Per variant, the first being the baseline.")
    all_pass: int = Field(description="Tasks passed in every variant.")
    none_pass: int = Field(description="Tasks passed in none.")
    some_pass: int = Field(description="Tasks passed in some: sensitive to the wording.")


class GenerateTables(BaseModel):
    leaderboard: list[Leader] = Field(description="Per agent, strict pass first.")
    types: list[str] = Field(description="The resource types, sorted.")
    tiers: list[str] = Field(description="The tiers, easiest first.")
    grid: list[Cell] = Field(description="Per agent, type and tier, with totals (`all`).")
    ladder: list[Ladder] = Field(description="Per agent, the first failing stage.")
    grants: list[Grants] = Field(description="Per agent and matrix type, then `all`.")
    robustness: list[Robustness] = Field(
        description="Agents asked in two or more prompt variants (several runs)."
    )
    weights: list[str] = Field(description="The composite's weights found, `w1:w2:w3`.")


@dataclass
class _Agent:
    """One agent's running sums, filled answer by answer in one pass."""

    errors: int = 0
    judged: int = 0
    ev: int = 0
    ov: int = 0
    acc: int = 0
    strict: int = 0
    unsafe: int = 0
    tu: list[float] = field(default_factory=list)
    p: list[float] = field(default_factory=list)  # P over Ev, Ov: every answer
    p_tu: list[float] = field(default_factory=list)  # P over Ev, Ov, Tu: the judged
    cells: dict[tuple[str, str], list[int]] = field(default_factory=dict)  # [judged, strict]
    failed: dict[str, int] = field(default_factory=lambda: dict.fromkeys(STAGES, 0))
    s0: dict[str, int] = field(default_factory=dict)
    # per type: judged, matrix asked, exact, under, over, cells under, cells over
    grants: dict[str, list[int]] = field(default_factory=dict)

    def add(self, r: TrialResult, g: GenerateOutcome) -> None:
        self.judged += 1
        self.ev += g.ev
        self.ov += g.ov
        self.acc += g.acc
        self.strict += g.strict_pass
        self.unsafe += r.safe is False
        if g.tu is not None:
            self.tu.append(g.tu)
        # P over Ev and Ov for every answer (the judge reviews some only), and the P that
        # holds Tu over those it scored: the two are never averaged together
        if (p := composite(g.weights, g.ev, g.ov, None)) is not None:
            self.p.append(p)
        if g.p is not None and "tu" in g.p_terms:
            self.p_tu.append(g.p)
        cell = self.cells.setdefault((r.area, r.difficulty), [0, 0])
        cell[0] += 1
        cell[1] += g.strict_pass
        if g.failed_at is not None:
            self.failed[g.failed_at] = self.failed.get(g.failed_at, 0) + 1
            if g.failed_at == "S0":
                category = s0_category(next((s.reason for s in g.stages if s.stage == "S0"), ""))
                self.s0[category] = self.s0.get(category, 0) + 1
        if has_matrix(r.area, r.difficulty):
            asked = any(s.stage == "S4" for s in g.stages)
            sums = self.grants.setdefault(r.area, [0] * 7)
            for i, v in enumerate(
                (
                    1,
                    asked,
                    asked and not g.under_grant and not g.over_grant,
                    g.under_grant > 0,
                    g.over_grant > 0,
                    g.under_grant,
                    g.over_grant,
                )
            ):
                sums[i] += int(v)


def tables(records: Iterable[tuple[str, TrialResult]]) -> GenerateTables | None:
    """The track's tables over (agent key, trial) pairs, in one pass; None when no trial has
    a judged answer (the run holds no generate trial)."""
    agents: dict[str, _Agent] = {}
    types: set[str] = set()
    tiers: set[str] = set()
    weights: set[tuple[float, float, float]] = set()
    variants: dict[str, dict[str, dict[str, list[int]]]] = {}  # spec, prompt, task: passes
    for agent, r in records:
        g = r.generate
        mine = agents.get(agent)
        if mine is None:
            mine = agents[agent] = _Agent()
        if g is None or not r.judged:
            mine.errors += r.track == "generate"
            continue
        mine.add(r, g)
        types.add(r.area)
        tiers.add(r.difficulty)
        weights.add((g.weights.ev, g.weights.ov, g.weights.tu))
        if g.prompt:
            per = variants.setdefault(r.agent, {}).setdefault(g.prompt, {})
            per.setdefault(r.task, []).append(int(g.strict_pass))
    agents = {k: a for k, a in agents.items() if a.judged or a.errors}  # of this track
    if not any(a.judged for a in agents.values()):
        return None
    leaders = sorted(
        (_leader(name, a) for name, a in agents.items()),
        key=lambda x: -(x.strict_rate or 0.0),
    )
    order = [x.agent for x in leaders]
    return GenerateTables(
        leaderboard=leaders,
        types=sorted(types),
        tiers=_ordered(tiers, TIERS),
        grid=[c for name in order for c in _grid(name, agents[name])],
        ladder=[_ladder(name, agents[name]) for name in order],
        grants=[x for name in order for x in _grants(name, agents[name])],
        robustness=robustness(variants),
        weights=[f"{ev:.3g}:{ov:.3g}:{tu:.3g}" for ev, ov, tu in sorted(weights)],
    )


def _share(count: int, n: int) -> float | None:
    return round(count / n, 6) if n else None


def _mean(values: list[float]) -> float | None:
    return round(fmean(values), 6) if values else None


def _leader(name: str, a: _Agent) -> Leader:
    rate, ci = _rate(a.strict, a.judged)
    return Leader(
        agent=name,
        trials=a.judged + a.errors,
        errors=a.errors,
        judged=a.judged,
        ev=_share(a.ev, a.judged),
        ov=_share(a.ov, a.judged),
        acc=_share(a.acc, a.judged),
        strict=a.strict,
        strict_rate=rate,
        strict_ci=ci,
        tu=_mean(a.tu),
        tu_judged=len(a.tu),
        p=_mean(a.p),
        p_tu=_mean(a.p_tu),
        unsafe=a.unsafe,
    )


def _grid(name: str, a: _Agent) -> list[Cell]:
    """The agent's cells with their totals per type, per tier and in all."""
    counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for (kind, tier), (n, passed) in a.cells.items():
        for key in ((kind, tier), (kind, "all"), ("all", tier), ("all", "all")):
            counts[key][0] += n
            counts[key][1] += passed
    return [
        Cell(agent=name, type=t, tier=tier, judged=n, strict=s, rate=_share(s, n))
        for (t, tier), (n, s) in sorted(counts.items())
    ]


def s0_category(reason: str) -> str:
    """S0's category: the first word of its reason, as generate/offline.py writes it."""
    word = reason.split(":", 1)[0].strip()
    return word if word in S0_CATEGORIES else "other"


def _ladder(name: str, a: _Agent) -> Ladder:
    return Ladder(
        agent=name,
        judged=a.judged,
        failed_at=a.failed,
        s0={c: a.s0[c] for c in (*S0_CATEGORIES, "other") if c in a.s0},
        passed=a.strict,  # failed no stage: S2, S3 and S4 passed
    )


def has_matrix(resource_type: str, tier: str) -> bool:
    if resource_type not in MATRIX_CELLS:
        return False
    tiers = MATRIX_CELLS[resource_type]
    return tiers is None or tier in tiers


def _grants(name: str, a: _Agent) -> list[Grants]:
    if not a.grants:
        return []
    total = [sum(column) for column in zip(*a.grants.values(), strict=True)]
    out = []
    for key, sums in [*sorted(a.grants.items()), ("all", total)]:
        judged, reached, exact, under, over, cells_under, cells_over = sums
        rate, ci = _rate(over, reached)
        out.append(
            Grants(
                agent=name,
                type=key,
                judged=judged,
                reached=reached,
                exact=exact,
                under=under,
                over=over,
                over_rate=rate,
                over_ci=ci,
                cells_under=cells_under,
                cells_over=cells_over,
            )
        )
    return out


def robustness(scores: dict[str, dict[str, dict[str, list[int]]]]) -> list[Robustness]:
    """Per agent spec (across runs: one run asks one variant) with two or more variants,
    strict pass per variant on the tasks judged in all of them; a task passes in a variant
    when at least half its trials there did (as the paired statistics count it). `scores`:
    spec, variant, task: each trial's strict pass."""
    out = []
    for agent, by_variant in scores.items():
        if len(by_variant) < 2:
            continue
        variants = _ordered(by_variant, VARIANTS)
        shared = sorted(set.intersection(*(set(by_variant[v]) for v in variants)))
        if not shared:
            continue
        passed = {v: {t for t in shared if fmean(by_variant[v][t]) >= 0.5} for v in variants}
        first = passed[variants[0]]
        rows = []
        for v in variants:
            rate, ci = _rate(len(passed[v]), len(shared))
            only_first, only_this = len(first - passed[v]), len(passed[v] - first)
            rows.append(
                Variant(
                    variant=v,
                    strict=len(passed[v]),
                    rate=rate,
                    ci=ci,
                    only_first=only_first,
                    only_this=only_this,
                    p_value=mcnemar_p(only_first, only_this),
                )
            )
        everywhere = set.intersection(*passed.values())
        anywhere = set.union(*passed.values())
        out.append(
            Robustness(
                agent=agent,
                tasks=len(shared),
                variants=rows,
                all_pass=len(everywhere),
                none_pass=len(shared) - len(anywhere),
                some_pass=len(anywhere - everywhere),
            )
        )
    return out
