"""pass@k and pass^k from repeated trials, with the unbiased estimators.

pass@k (Chen et al. 2021, "Evaluating Large Language Models Trained on Code"): the chance
that at least one of k trials drawn without replacement from a task's n passes, given c of n
passed: 1 - C(n-c, k) / C(n, k). pass^k (Yao et al. 2024, tau-bench): the chance that all
k pass: C(c, k) / C(n, k). Both averaged over tasks; both need k <= n for every task.
These are exact combinatorics over the observed trials, not a distribution, so
`math.comb` (exact integers) is the right tool.
"""

from math import comb


def pass_at_k(n: int, c: int, k: int) -> float:
    if not 0 < k <= n or not 0 <= c <= n:
        raise ValueError(f"pass@k needs 0 < k <= n and 0 <= c <= n (n={n}, c={c}, k={k})")
    return 1.0 - comb(n - c, k) / comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    if not 0 < k <= n or not 0 <= c <= n:
        raise ValueError(f"pass^k needs 0 < k <= n and 0 <= c <= n (n={n}, c={c}, k={k})")
    return comb(c, k) / comb(n, k)


def over_tasks(counts: list[tuple[int, int]]) -> dict[int, tuple[float, float]]:
    """{k: (pass@k, pass^k)} averaged over tasks given (n, c) per task, for every k up to
    the fewest trials any task has; empty when no task has more than one."""
    if not counts or max(n for n, _ in counts) < 2:
        return {}
    top = min(n for n, _ in counts)
    return {
        k: (
            sum(pass_at_k(n, c, k) for n, c in counts) / len(counts),
            sum(pass_hat_k(n, c, k) for n, c in counts) / len(counts),
        )
        for k in range(1, top + 1)
    }
