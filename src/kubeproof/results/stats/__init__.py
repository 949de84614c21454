"""Statistics over trial outcomes: rates with intervals per agent and slice, pass@k and
pass^k, and the paired comparison of two agents (docs/results.md, "Statistics")."""

from kubeproof.results.stats.outcome import Outcome
from kubeproof.results.stats.paired import Comparison, Paired, compare, mcnemar_p
from kubeproof.results.stats.passk import over_tasks, pass_at_k, pass_hat_k
from kubeproof.results.stats.rates import PassK, Rates, table, wilson

__all__ = [
    "Comparison",
    "Outcome",
    "Paired",
    "PassK",
    "Rates",
    "compare",
    "mcnemar_p",
    "over_tasks",
    "pass_at_k",
    "pass_hat_k",
    "table",
    "wilson",
]
