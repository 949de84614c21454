"""The netpol track's harness speed (issue 19): setup to the first turn and harness time per
iteration, and the whole 15-query NetArena-compatible suite, on one embedded cluster.

The oracle plays each task in NetArena's mode (one command per turn, its cap and timeout),
so the agent's own thinking costs nothing and what is measured is the harness: applying
the task's broken objects and seeing them live (setup to first turn), and after each command
reading the live objects and computing the mismatch report (per iteration). Goals: <= 3 s
and <= 0.5 s. NetArena's own figures, for the comparison (docs/netpol.md): minutes of setup
per query on kind and ~20-30 s per iteration of `nc -z` probes.

    python benchmarks/netpol.py [--per-type 1] [--seed 0] [--json out.json]
"""

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from rich.table import Table

from report import publish

GOAL_SETUP_SECONDS = 3.0
GOAL_ITERATION_SECONDS = 0.5
NETARENA_ITERATION_SECONDS = 20.0  # the low end of NetArena's ~20-30 s per iteration


def main() -> None:
    from kubeproof.netpol import agents as reference
    from kubeproof.netpol import run as netpol_run
    from kubeproof.netpol import tasks
    from kubeproof.netpol.trial import Settings

    parser = argparse.ArgumentParser(description="Time the netpol track's harness.")
    parser.add_argument("--per-type", type=int, default=1, help="Tasks per NetArena type.")
    parser.add_argument("--seed", type=int, default=0, help="The first seed of the suite.")
    parser.add_argument("--json", default=None, help="Also write the figures here.")
    args = parser.parse_args()

    ids = tasks.suite("netarena-k8s", args.per_type, args.seed)
    start = time.monotonic()
    cluster = netpol_run.start_cluster()
    cluster_seconds = time.monotonic() - start
    try:
        with tempfile.TemporaryDirectory() as tmp:
            began = time.monotonic()
            records = netpol_run.run(
                ids, [reference.spec("oracle")], Path(tmp), Settings(mode="netarena"), cluster
            )
            suite_seconds = time.monotonic() - began
    finally:
        cluster.stop()

    outcomes = [r.netpol for r in records if r.netpol is not None]
    if len(outcomes) != len(ids):
        raise SystemExit(f"{len(ids) - len(outcomes)} of {len(ids)} trials have no outcome")
    pairs = zip(records, outcomes, strict=True)
    setups = [r.timings.agent_ready or o.setup_seconds for r, o in pairs]
    reports = [s.report_seconds for o in outcomes for s in o.steps if s.mismatches is not None]
    correct = sum(o.correct for o in outcomes)
    harness = sum(setups) + sum(reports)
    p90 = statistics.quantiles(reports, n=10)[-1] if len(reports) > 1 else max(reports)

    table = Table("figure", "value", "goal", title="netpol harness (NetArena-compatible suite)")
    table.add_row("tasks (oracle, netarena mode)", f"{len(ids)}", "")
    table.add_row("correct at the end", f"{correct}/{len(ids)}", f"{len(ids)}/{len(ids)}")
    table.add_row("cluster start seconds (once per run)", f"{cluster_seconds:.1f}", "")
    table.add_row("setup to first turn, median s", f"{statistics.median(setups):.2f}", "<= 3")
    table.add_row("setup to first turn, max s", f"{max(setups):.2f}", "")
    table.add_row("iterations measured", f"{len(reports)}", "")
    table.add_row("harness per iteration, median s", f"{statistics.median(reports):.3f}", "<= 0.5")
    table.add_row("harness per iteration, p90 s", f"{p90:.3f}", "")
    table.add_row("suite wall seconds (cluster start excluded)", f"{suite_seconds:.1f}", "")
    table.add_row("suite harness seconds (setups + reports)", f"{harness:.1f}", "")
    ratio = NETARENA_ITERATION_SECONDS / statistics.median(reports)
    table.add_row("NetArena's ~20 s per iteration / ours", f"{ratio:.0f}x", "")
    publish(
        table,
        {
            "tasks": len(ids),
            "correct": correct,
            "cluster_start_seconds": round(cluster_seconds, 3),
            "setup_median_seconds": round(statistics.median(setups), 3),
            "setup_max_seconds": round(max(setups), 3),
            "iterations": len(reports),
            "iteration_median_seconds": round(statistics.median(reports), 4),
            "iteration_p90_seconds": round(p90, 4),
            "suite_seconds": round(suite_seconds, 3),
            "suite_harness_seconds": round(harness, 3),
            "within_goals": statistics.median(setups) <= GOAL_SETUP_SECONDS
            and statistics.median(reports) <= GOAL_ITERATION_SECONDS,
        },
        args.json,
    )


if __name__ == "__main__":
    main()
