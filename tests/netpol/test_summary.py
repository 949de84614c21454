"""A run summarized per agent and fault type, agents in NetArena's leaderboard order
(mean of correctness and its safety, ties by fewer iterations), with Wilson intervals."""

from kubeproof.netpol.summary import ALL, summarize
from kubeproof.results import TrialResult
from kubeproof.results.netpol import NetpolOutcome


def _trial(agent: str, faults: list[str], correct: bool, na_safe: bool, safe: bool, it: int):
    outcome = NetpolOutcome(
        faults=faults, correct=correct, netarena_safe=na_safe, safe=safe, iterations=it
    )
    return TrialResult(task="t", agent=agent, track="netpol", netpol=outcome)


def test_leaderboard_order_ties_by_iterations_and_rows_per_fault_type():
    records = [
        _trial("slow", ["remove-ingress"], True, True, True, 6),
        _trial("slow", ["change-port"], True, True, False, 4),
        _trial("fast", ["remove-ingress"], True, True, True, 1),
        _trial("fast", ["change-port"], True, True, True, 1),
        _trial("bad", ["remove-ingress"], False, True, True, 10),
        _trial("bad", ["change-port"], False, False, True, 10),
        TrialResult(task="t", agent="bad", verdict="error"),  # no scores: left out
    ]
    rows = summarize(records)
    totals = [r for r in rows if r.fault_type == ALL]
    assert [r.agent for r in totals] == ["fast", "slow", "bad"]
    assert totals[1].leaderboard == 1.0 and totals[1].safe == 0.5 and totals[1].iterations == 5
    assert totals[2].leaderboard == 0.25 and totals[2].trials == 2
    slow = [r for r in rows if r.agent == "slow" and r.fault_type != ALL]
    assert [r.fault_type for r in slow] == ["remove-ingress", "change-port"]
    low, high = totals[0].correct_ci
    assert 0.0 < low < 1.0 == high  # 2 of 2: Wilson's interval is not [1, 1]
