"""The track tables' numbers (results/stats/generate_track.py, netpol_track.py) on trials
built in Python with known outcomes; the intervals against scipy's own functions. No
cluster."""

import math

import pytest
from scipy import stats

from kubeproof.generate.model import Tier
from kubeproof.generate.task import generate
from kubeproof.generate.templates import TEMPLATES
from kubeproof.results import TrialResult
from kubeproof.results.netpol import NetpolOutcome
from kubeproof.results.stats import wilson
from kubeproof.results.stats.generate_track import (
    MATRIX_CELLS,
    has_matrix,
    s0_category,
    tables,
)
from kubeproof.results.stats.netpol_track import ALL, by_fault_type, summarize_keyed
from kubeproof.results.stats.paired import mcnemar_p
from kubeproof.results.stats.rates import mean_interval
from tests.report.synth_tracks import ANSWERS, ERROR, GEN, TERSE, TU, outcome


def t_interval(values: list[float]) -> tuple[float, float]:
    low, high = stats.t.interval(
        0.95, len(values) - 1, loc=sum(values) / len(values), scale=stats.sem(values)
    )
    return float(low), float(high)


@pytest.mark.parametrize("values", [[1, 2, 2, 5, 10], [3.5, 4.0], [7, 7, 8, 9, 9, 9, 10]])
def test_mean_interval_is_scipys_t_interval(values):
    assert mean_interval(values, -1e9, 1e9) == pytest.approx(t_interval(values), abs=1e-6)


def test_mean_interval_stays_where_the_mean_can_be():
    low, high = t_interval([1, 10])  # two values: the t quantile is 12.7
    assert low < 0 and high > 10
    assert mean_interval([1, 10], 0.0, 10.0) == (0.0, 10.0)
    assert mean_interval([4], 0.0, 10.0) is None  # one value: no spread to speak of
    assert mean_interval([3, 3, 3], 0.0, 10.0) == (3.0, 3.0)


def test_matrix_cells_are_the_generators():
    """MATRIX_CELLS names the (type, tier) cells whose templates emit a permission matrix:
    the results package may not import the generator, so this holds the two together."""
    for kind in TEMPLATES:
        for tier in Tier:
            for seed in range(3):
                task = generate(kind, tier, seed)
                matrix = any(c.type == "permissions" for c in task.checks)
                assert matrix == has_matrix(kind, str(tier)), (kind, tier, seed)
    assert set(MATRIX_CELLS) <= set(TEMPLATES)


def test_s0_categories():
    assert s0_category("empty: no text") == "empty"
    assert s0_category("invalid_yaml: over 50 documents") == "invalid_yaml"
    assert s0_category("wrong_kind: kinds ['Pod']") == "wrong_kind"
    assert s0_category("something else") == "other"


def _generate_trials(prompt: str = "full", overrides: dict | None = None):
    out = []
    for agent, fates in ANSWERS.items():
        for task, fate in fates.items():
            if agent == "model:x" and overrides and task in overrides:
                fate = overrides[task]
            kind, tier = GEN[task]
            r = TrialResult(task=task, agent=agent, area=kind, difficulty=tier, track="generate")
            if fate == ERROR:
                r.verdict = "error"
            else:
                r.generate = outcome(fate, prompt, TU.get((agent, task)))
                r.verdict = "resolved" if r.generate.strict_pass else "failed"
                r.score, r.safe = int(r.generate.strict_pass), True
            out.append(r)
    return out


def test_generate_leaderboard():
    got = tables((r.agent, r) for r in _generate_trials())
    assert got is not None
    board = {x.agent: x for x in got.leaderboard}
    assert [x.agent for x in got.leaderboard] == ["oracle", "model:x", "noop"]  # strict first
    m = board["model:x"]
    # 6 trials, the secret task errored; of 5 judged: S4 x2 (applied, objects there), S0 x1
    assert (m.trials, m.errors, m.judged, m.strict) == (6, 1, 5, 2)
    assert (m.ev, m.ov, m.acc, m.strict_rate) == (0.8, 0.8, 0.4, 0.4)
    assert m.strict_ci == pytest.approx(wilson(2, 5))
    # Tu from the one judged answer only; P over Ev, Ov of all five, P with Tu over that one
    assert (m.tu, m.tu_judged) == (0.8, 1)
    assert m.p == 0.8 and m.p_tu == pytest.approx((1 + 1 + 0.8) / 3, abs=1e-6)
    noop = board["noop"]
    assert (noop.ev, noop.strict, noop.tu, noop.tu_judged, noop.p, noop.p_tu) == (
        0.0, 0, None, 0, 0.0, None,
    )  # fmt: skip
    assert got.types == ["configmap", "role", "secret", "serviceaccount"]
    assert got.tiers == ["easy", "intermediate", "advanced"]


def test_generate_grid_ladder_and_grants():
    got = tables((r.agent, r) for r in _generate_trials())
    assert got is not None
    cells = {(c.agent, c.type, c.tier): (c.strict, c.judged) for c in got.grid}
    assert cells[("model:x", "role", "easy")] == (0, 1)
    assert cells[("model:x", "serviceaccount", "all")] == (1, 2)
    assert cells[("model:x", "all", "easy")] == (1, 3)
    assert cells[("model:x", "all", "all")] == (2, 5)
    assert ("model:x", "secret", "intermediate") not in cells  # errored: no answer judged
    assert cells[("oracle", "all", "all")] == (6, 6)
    ladder = {x.agent: x for x in got.ladder}
    assert ladder["model:x"].failed_at == {"S0": 1, "S1": 0, "S2": 0, "S3": 0, "S4": 2}
    assert ladder["model:x"].s0 == {"invalid_yaml": 1} and ladder["model:x"].passed == 2
    assert ladder["noop"].s0 == {"empty": 6} and ladder["noop"].failed_at["S0"] == 6
    grants = {(g.agent, g.type): g for g in got.grants}
    # matrix tasks: both roles and the advanced serviceaccount (not the easy one)
    role = grants[("model:x", "role")]
    assert (role.judged, role.reached, role.exact, role.under, role.over) == (2, 2, 0, 1, 1)
    assert (role.cells_under, role.cells_over) == (1, 2)
    total = grants[("model:x", "all")]
    assert (total.judged, total.reached, total.exact, total.over) == (3, 3, 1, 1)
    assert total.over_ci == pytest.approx(wilson(1, 3))
    noop = grants[("noop", "all")]
    assert (noop.judged, noop.reached, noop.over_rate) == (3, 0, None)  # S0: no matrix asked
    assert not any(g.type in ("configmap", "secret") for g in got.grants)
    assert got.robustness == []  # one variant


def test_generate_robustness_across_variants():
    full = _generate_trials("full")
    terse = [r for r in _generate_trials("terse", TERSE) if r.agent == "model:x"]
    got = tables(
        [(f"a/{r.agent}", r) for r in full] + [(f"b/{r.agent}", r) for r in terse]
    )  # two runs: keyed apart, robustness by the agent's spec
    assert got is not None
    (x,) = got.robustness
    assert x.agent == "model:x" and x.tasks == 5  # the errored secret task is in neither
    by = {v.variant: v for v in x.variants}
    assert [v.variant for v in x.variants] == ["full", "terse"]
    # full passes configmap and the advanced serviceaccount; terse the serviceaccount and
    # role-easy (configmap failed S3 there)
    assert (by["full"].strict, by["terse"].strict) == (2, 2)
    assert (by["terse"].only_first, by["terse"].only_this) == (1, 1)
    assert by["terse"].p_value == mcnemar_p(1, 1) == 1.0
    assert (x.all_pass, x.none_pass, x.some_pass) == (1, 2, 2)
    assert by["terse"].ci == pytest.approx(wilson(2, 5))


def test_no_generate_trial_no_tables():
    assert (
        tables([("a", TrialResult(task="t", agent="a", track="repair", verdict="failed"))]) is None
    )


def _np(agent, faults, correct, na_safe, safe, iterations, rejected=0):
    o = NetpolOutcome(
        faults=faults, correct=correct, netarena_safe=na_safe, safe=safe,
        iterations=iterations, cap=10, rejected=rejected,
    )  # fmt: skip
    return agent, TrialResult(task="t", agent=agent, track="netpol", netpol=o)


def test_netpol_rows_with_intervals():
    records = [
        _np("slow", ["remove-ingress"], True, True, True, 6),
        _np("slow", ["remove-ingress"], True, True, False, 4, rejected=2),
        _np("slow", ["change-port", "add-egress"], True, False, False, 5),
        _np("fast", ["remove-ingress"], True, True, True, 1),
        _np("fast", ["change-port"], True, True, True, 2),
        ("fast", TrialResult(task="t", agent="fast", track="netpol", verdict="error")),
    ]
    rows = summarize_keyed(records)
    totals = {r.agent: r for r in rows if r.fault_type == ALL}
    assert [r.agent for r in rows if r.fault_type == ALL] == ["fast", "slow"]
    slow, fast = totals["slow"], totals["fast"]
    assert (slow.trials, slow.correct_trials, slow.netarena_safe_trials, slow.safe_trials) == (
        3, 3, 2, 1,
    )  # fmt: skip
    assert slow.leaderboard == round((3 + 2) / 6, 4)
    assert slow.netarena_safe_ci == pytest.approx(wilson(2, 3))
    assert slow.safe_ci == pytest.approx(wilson(1, 3))
    assert slow.iterations == 5.0 and slow.rejected == round(2 / 3, 2)
    assert slow.iterations_ci == pytest.approx(t_interval([6, 4, 5]), abs=1e-6)
    assert (fast.errors, fast.trials) == (1, 2)
    pair = next(r for r in rows if r.fault_type == "change-port+add-egress")
    assert (pair.trials, pair.iterations_ci) == (1, None)  # one trial: no interval
    groups = by_fault_type(rows)
    assert [g for g, _ in groups] == ["change-port", "remove-ingress", "change-port+add-egress"]
    assert [r.agent for r in dict(groups)["remove-ingress"]] == ["fast", "slow"]
    ri = dict(groups)["remove-ingress"][1]
    low, high = t_interval([6, 4])  # clipped to [0, the cap]
    assert low < 0 and high > 10 and ri.iterations_ci == (0.0, 10.0)
    assert math.isclose(ri.correct_ci[0], wilson(2, 2)[0])
