"""The generate track's judging speed (issue 18 item 4): time to judge N reference answers
and N mutants of a suite with W workers, each worker one embedded cluster judging its tasks
one after another with exact cleanup, and the time per stage per answer.

The issue's figure is 810 references and 810 mutants of kubebench-810 with 4 workers (goal
under 10 minutes on this 2-core machine). A smaller run prints the extrapolation to that
figure from its own judging rate, and says that it is one.

    python benchmarks/generate.py [--n 24] [--workers 2] [--suite kubebench-810] [--json out.json]
"""

import argparse
import statistics
import time

from rich.table import Table

from report import publish

GOAL_SECONDS = 600.0
GOAL_ANSWERS, GOAL_WORKERS = 1620, 4


def work(suite: str, n: int):
    """The first n tasks, each with its reference and one mutant (operators in turn)."""
    from kubeproof.generate import suites
    from kubeproof.generate.live.workers import Work

    items = []
    for i, task in enumerate(suites.tasks(suite, limit=n)):
        m = task.mutants[i % len(task.mutants)]
        items.append(
            Work(task, [("reference", task.reference), (f"mutant:{m.operator}", m.answer)])
        )
    return items


def main() -> None:
    from kubeproof.generate.live.prove import stage_means
    from kubeproof.generate.live.workers import embedded, judge_all, nodes_for

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=24, help="references (and as many mutants)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--suite", default="kubebench-810")
    parser.add_argument("--recycle-every", type=int, default=500)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()

    items = work(args.suite, args.n)
    began = time.monotonic()
    first: float | None = None
    judged = []
    start = embedded(nodes_for(item.task for item in items))
    for j in judge_all(items, args.workers, start=start, recycle_every=args.recycle_every):
        first = first if first is not None else time.monotonic() - began - j.seconds
        judged.append(j)
    wall = time.monotonic() - began
    starting = first or 0.0  # until the first answer: the clusters starting
    judging = wall - starting
    wrong = [j for j in judged if (j.label == "reference") != j.strict_pass or j.error]
    rate = judging * args.workers / max(len(judged), 1)  # worker-seconds per answer
    full = args.n * 2 == GOAL_ANSWERS and args.workers == GOAL_WORKERS
    estimate = starting + rate * GOAL_ANSWERS / GOAL_WORKERS
    result = {
        "suite": args.suite,
        "answers": len(judged),
        "workers": args.workers,
        "wall_s": round(wall, 1),
        "cluster_start_s": round(starting, 1),
        "judging_s": round(judging, 1),
        "answers_per_s": round(len(judged) / judging, 2) if judging else None,
        "worker_s_per_answer": round(rate, 3),
        "median_answer_s": round(statistics.median(j.seconds for j in judged), 3),
        "per_answer_s": stage_means(judged),
        "wrong_verdicts": len(wrong),
        "goal": f"{GOAL_ANSWERS} answers, {GOAL_WORKERS} workers, <= {GOAL_SECONDS:.0f} s",
        "measured_at_goal_size": full,
        "estimate_at_goal_s": round(wall if full else estimate, 1),
    }
    table = Table("FIGURE", "VALUE", box=None)
    for key, value in result.items():
        table.add_row(key, str(value))
    if not full:
        table.add_row(
            "note",
            "estimate = start + worker-seconds per answer x 1620 / 4 "
            "(an extrapolation that assumes 4 workers scale as these did; not a measurement)",
        )
    publish(table, result, args.json)


if __name__ == "__main__":
    main()
