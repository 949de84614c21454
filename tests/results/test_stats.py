"""The statistics against independent computations: McNemar's exact p against scipy's
binomial test, pass@k and pass^k against hand-computed cases, Wilson against its closed
form, Holm against its definition; and `kubeproof runs compare` on two runs whose per-task
outcomes are known."""

import json
from math import isclose

import pytest
from scipy.stats import binomtest
from typer.testing import CliRunner

from kubeproof.cli import app
from kubeproof.results.stats import Outcome, compare, mcnemar_p, over_tasks, table, wilson
from kubeproof.results.stats.paired import bootstrap_interval, holm
from tests.results import synth


def outcomes(agent: str, scores: dict[str, list[int]], **labels) -> list[Outcome]:
    return [
        Outcome(
            task=t,
            agent=agent,
            repeat=i + 1,
            score=s,
            verdict="resolved" if s else "failed",
            area=labels.get("area", {}).get(t, "a"),
            difficulty="easy",
            safe=True,
        )
        for t, runs in scores.items()
        for i, s in enumerate(runs)
    ]


@pytest.mark.parametrize(("only_a", "only_b"), [(0, 7), (2, 9), (5, 5), (1, 0), (0, 0), (3, 12)])
def test_mcnemar_exact_equals_scipys_binomial_test(only_a, only_b):
    # (A, B) per task: only A passes, only B passes, both pass (2), neither (2)
    pairs = [(1, 0)] * only_a + [(0, 1)] * only_b + [(1, 1)] * 2 + [(0, 0)] * 2
    a = {f"t{i}": [pa] for i, (pa, _) in enumerate(pairs)}
    b = {f"t{i}": [pb] for i, (_, pb) in enumerate(pairs)}
    result = compare("A", outcomes("A", a), "B", outcomes("B", b)).overall
    assert (result.only_a, result.only_b, result.tasks) == (only_a, only_b, len(pairs))
    n = only_a + only_b
    expected = 1.0 if n == 0 else binomtest(result.only_b, n, 0.5).pvalue
    assert isclose(result.p_value, expected, rel_tol=1e-12, abs_tol=1e-15)
    assert isclose(mcnemar_p(result.only_a, result.only_b), expected, rel_tol=1e-12)


def test_the_verdict_reads_as_a_sentence():
    a = {f"t{i}": [1 if i < 3 else 0] for i in range(12)}
    b = {f"t{i}": [1 if i < 10 else 0] for i in range(12)}  # 7 more, none fewer
    c = compare("A", outcomes("A", a), "B", outcomes("B", b))
    assert (c.overall.only_a, c.overall.only_b) == (0, 7)
    assert c.verdict == (
        "B solves 7 more tasks than A (10 vs 3 of 12); p = 0.016; the difference is real at 5 %"
    )
    even = compare("A", outcomes("A", a), "B", outcomes("B", a))
    assert even.verdict == "B and A solve as many tasks (3 of 12); p = 1; no difference shown"
    a_only = {f"t{i}": [1 if i < 5 else 0] for i in range(12)}
    b_some = {f"t{i}": [1 if 2 <= i < 8 else 0] for i in range(12)}  # A alone 2, B alone 3
    chance = compare("A", outcomes("A", a_only), "B", outcomes("B", b_some))
    assert chance.verdict == (
        "B solves 1 more task than A (6 vs 5 of 12); p = 1; "
        "the difference could be chance (not significant at 5 %)"
    )


def test_pass_at_k_and_pass_hat_k_equal_the_hand_computed_case():
    # task x: 1 of 3 trials passed; task y: 2 of 3.
    # pass@1 = mean(1/3, 2/3) = 1/2; pass@2 = mean(1 - C(2,2)/C(3,2), 1 - C(1,2)/C(3,2))
    # = mean(2/3, 1) = 5/6; pass@3 = 1. pass^2 = mean(C(1,2)/3, C(2,2)/3) = 1/6; pass^3 = 0.
    curve = over_tasks([(3, 1), (3, 2)])
    assert curve[1] == pytest.approx((1 / 2, 1 / 2))
    assert curve[2] == pytest.approx((5 / 6, 1 / 6))
    assert curve[3] == pytest.approx((1.0, 0.0))
    rows = table(outcomes("A", {"x": [1, 0, 0], "y": [0, 1, 1]}))
    everything = next(r for r in rows if r.slice == "all")
    assert [(p.k, p.pass_at_k, p.pass_hat_k) for p in everything.pass_k] == [
        (1, 0.5, 0.5),
        (2, 0.833333, 0.166667),
        (3, 1.0, 0.0),
    ]
    assert over_tasks([(1, 1), (1, 0)]) == {}  # no repeats: no curve


def test_wilson_interval_matches_its_closed_form():
    z2 = 1.959963984540054**2
    assert wilson(0, 43) == (0.0, round(z2 / (43 + z2), 6))  # 0 of n: upper = z^2/(n+z^2)
    low, high = wilson(7, 10)
    centre = (7 + z2 / 2) / (10 + z2)
    half = 1.959963984540054 * ((7 * 3 / 10 + z2 / 4) ** 0.5) / (10 + z2)
    assert (low, high) == (round(centre - half, 6), round(centre + half, 6))


@pytest.mark.parametrize("n", [1, 3, 10, 43, 250])
def test_wilson_equals_statsmodels(n):
    from statsmodels.stats.proportion import proportion_confint

    for passed in range(n + 1):
        low, high = proportion_confint(passed, n, alpha=0.05, method="wilson")
        assert wilson(passed, n) == (round(float(low), 6), round(float(high), 6))


def test_holm_equals_statsmodels_multipletests():
    import random

    from statsmodels.stats.multitest import multipletests

    rng = random.Random(3)
    for m in (1, 2, 5, 17):
        ps = [rng.choice([rng.random(), rng.random() / 100, 1.0, 0.04]) for _ in range(m)]
        expected = multipletests(ps, alpha=0.05, method="holm")[1]
        assert holm(ps) == pytest.approx(list(expected), rel=1e-12, abs=1e-15)


def test_the_bootstrap_agrees_with_scipys_paired_percentile_bootstrap():
    # same estimator, different random draws: the bounds agree to Monte Carlo error
    import numpy as np
    from scipy.stats import bootstrap

    rng = np.random.default_rng(5)
    xa = rng.integers(0, 2, 300).astype(float)
    xb = np.where(rng.random(300) < 0.8, np.maximum(xa, rng.integers(0, 2, 300)), 0.0)
    ours = bootstrap_interval(xb - xa, seed=1)
    theirs = bootstrap(
        (xa, xb),
        lambda x, y, axis: np.mean(y - x, axis=axis),
        paired=True,
        vectorized=True,
        n_resamples=10_000,
        method="percentile",
        rng=np.random.default_rng(2),
    ).confidence_interval
    assert ours[0] == pytest.approx(theirs.low, abs=0.01)
    assert ours[1] == pytest.approx(theirs.high, abs=0.01)
    assert bootstrap_interval(xb - xa, seed=1) == ours  # seeded: the same twice


def test_rates_are_per_agent_leave_errors_out_and_cost_is_unknown_if_one_price_is():
    found = outcomes("A", {"x": [1], "y": [0]}) + outcomes("B", {"x": [1], "y": [1]})
    found.append(Outcome(task="z", agent="A", verdict="error", score=0))
    found[0].tokens, found[0].cost_usd = 100, 0.5
    found[1].tokens, found[1].cost_usd = 100, None
    rows = {(r.agent, r.slice): r for r in table(found)}
    a = rows[("A", "all")]
    assert (a.trials, a.judged, a.errors, a.passed, a.pass_rate) == (3, 2, 1, 1, 0.5)
    assert a.cost_usd is None and a.tokens == 100
    assert rows[("B", "all")].pass_rate == 1.0  # never averaged with A


def test_holm_adjusts_slices_and_the_bootstrap_is_seeded():
    area = {f"t{i}": ("left" if i < 10 else "right") for i in range(20)}
    a = {f"t{i}": [0] for i in range(20)}
    b = {f"t{i}": [1 if i < 9 or i == 15 else 0] for i in range(20)}
    one = compare("A", outcomes("A", a, area=area), "B", outcomes("B", b, area=area), seed=7)
    again = compare("A", outcomes("A", a, area=area), "B", outcomes("B", b, area=area), seed=7)
    assert one == again
    by = {(s.slice, s.value): s for s in one.slices}
    ps = sorted(
        [
            by[("area", "left")].p_value,
            by[("area", "right")].p_value,
            by[("difficulty", "easy")].p_value,
            by[("track", "repair")].p_value,
        ]
    )
    m = len(ps)  # Holm: the i-th smallest times (m - i), kept monotone, capped at 1
    holm = []
    for i, p in enumerate(ps):
        holm.append(min(1.0, max([min(1.0, p * (m - i)), *holm])))
    assert sorted(s.p_holm for s in one.slices) == pytest.approx(holm)
    overall = one.overall
    assert overall.difference == 0.5 and overall.ci_low <= 0.5 <= overall.ci_high
    assert 0 < overall.ci_low < overall.ci_high < 1


def test_runs_compare_on_two_runs_with_known_outcomes(tmp_path):
    t1, t2, t3 = synth.TASKS
    extra = [f"repair/extra/t{i}" for i in range(6)]
    a = {(t, "baseline", 1): 0 for t in [t1, t2, t3, *extra]} | {(t1, "baseline", 1): 1}
    b = {(t, "candidate", 1): 1 for t in [t1, t2, t3, *extra]} | {(t2, "candidate", 1): 0}
    run_a = synth.run(tmp_path / "runs", "a", a)
    run_b = synth.run(tmp_path / "runs", "b", b)
    result = CliRunner().invoke(app, ["runs", "compare", str(run_a), str(run_b), "-o", "json"])
    assert result.exit_code == 0, result.output
    shown = json.loads(result.output)
    overall = shown["overall"]
    # A passed t1 only; B all but t2: B alone on 7 (t3 + 6 extra), A alone on none
    assert (overall["only_a"], overall["only_b"], overall["tasks"]) == (0, 7, 9)
    assert overall["p_value"] == pytest.approx(binomtest(7, 7, 0.5).pvalue, rel=1e-12)
    assert shown["verdict"].startswith("b/candidate solves 7 more tasks than a/baseline")
    assert shown["verdict"].endswith("p = 0.016; the difference is real at 5 %")
    text = CliRunner().invoke(
        app, ["runs", "compare", "a", "b", "--db", str(tmp_path / "runs" / "kubeproof.db")]
    )
    assert text.exit_code == 0 and "the difference is real at 5 %" in " ".join(text.output.split())
    # a run in the other timing profile is said not to be comparable
    plan = json.loads((run_b / "run.json").read_text()) | {"timing": "fast"}
    (run_b / "run.json").write_text(json.dumps(plan))
    warned = CliRunner().invoke(app, ["runs", "compare", str(run_a), str(run_b), "-o", "json"])
    assert json.loads(warned.output)["warnings"][0].startswith(
        "the runs used different timing profiles (real vs fast)"
    )
