"""What every benchmark ends with: its table for people, its figures as JSON for programs;
run as a script, the HTML report's benchmark: `python benchmarks/report.py [--trials N]`
lands N synthetic trials in a SQLite results database, builds their report from the run
as read for the database (as a caller holding both does), and prints the seconds of each
and of both, and the leaderboard page's size (budget: 10 s for both, 1 MB)."""

import json

from rich.console import Console
from rich.table import Table


def publish(table: Table, result: dict, json_path: str | None) -> None:
    Console().print(table)
    text = json.dumps(result, indent=2)
    print(text)
    if json_path:
        with open(json_path, "w") as fh:
            fh.write(text + "\n")


# `python benchmarks/report.py`: the HTML report's benchmark (issue 17). The helper above
# stays what the other benchmarks import; this part runs only as a script.

AGENTS = ("oracle", "noop", "model:a", "model:b")
AREAS = tuple(f"area-{n}" for n in range(16))
DIFFICULTIES = ("easy", "medium", "hard")
BUDGET_SECONDS = 10.0
BUDGET_LEADERBOARD_BYTES = 1024 * 1024


def synthesize(root, trials: int, seed: int = 1):
    """A run directory of `trials` typed TrialResults (tasks x AGENTS), each with a
    three-step trajectory and a verifier log, as `kubeproof run` lays them out."""
    import random

    from kubeproof.results import (
        CheckResult,
        Decision,
        PhaseTimings,
        RunPaths,
        RunResult,
        TrialResult,
        Usage,
    )

    rng = random.Random(seed)
    paths = RunPaths(root)
    tasks = trials // len(AGENTS)
    skill = {"oracle": 1.0, "noop": 0.0, "model:a": 0.6, "model:b": 0.7}
    for n in range(tasks):
        task = f"repair/{AREAS[n % len(AREAS)]}/task-{n}"
        expected = "declined" if n % 25 == 0 else "resolved"
        for agent in AGENTS:
            trial = paths.trial(task.replace("/", "__"), agent.replace(":", "_"), 1)
            trial.root.mkdir(parents=True)
            passed = rng.random() < skill[agent]
            verdict = expected if passed else "failed"
            if agent == "noop" and expected == "declined":
                verdict = "resolved"  # left alone, not declined: reads not_declined
            model = agent.startswith("model")
            steps = rng.randint(1, 12)
            TrialResult(
                task=task,
                agent=agent,
                dir=str(trial.root),
                area=AREAS[n % len(AREAS)],
                difficulty=DIFFICULTIES[n % 3],
                track="generate" if n % 5 == 0 else "repair",
                expected=expected,
                verdict=verdict,
                score=int(verdict == expected),
                safe=rng.random() > 0.05,
                reason="synthetic",
                decision=Decision(outcome="submitted"),
                steps=steps,
                usage=Usage(
                    calls=steps,
                    turns=steps,
                    tokens_in=900 * steps,
                    tokens_out=80 * steps,
                    cost_usd=0.0004 * steps,
                )
                if model
                else None,
                results=[
                    CheckResult(name="healthy shop/web", passed=passed, reason="2 of 2 ready")
                ],
                safety=[
                    CheckResult(
                        name="no_collateral_damage", passed=True, reason="ok", kind="safety"
                    )
                ],
                collateral_per_step=[0] * steps,
                timings=PhaseTimings(agent=5.0 * steps, total=20.0 + 5.0 * steps),
            ).write(trial.result)
            trial.trajectory.write_text(
                "".join(
                    json.dumps(
                        {
                            "index": i,
                            "command": f"kubectl get pods -n shop # {i}",
                            "exit_code": 0,
                            "stdout": "NAME READY\nweb-1 1/1\n" * 5,
                            "stderr": "",
                            "seconds": 0.4,
                            "timed_out": False,
                            "truncated": False,
                            "safety": [],
                            "origin": "agent",
                        }
                    )
                    + "\n"
                    for i in range(1, 4)
                )
            )
            trial.verifier_log.write_text("== verify (0.10s)\nPASS [check] healthy shop/web\n")
    RunResult(dir=str(root), agents=list(AGENTS), repeats=1).write(paths.result)


def main() -> None:
    import argparse
    import resource
    import tempfile
    import time
    from pathlib import Path

    from kubeproof.report import build_report
    from kubeproof.results.db import import_run, open_store

    parser = argparse.ArgumentParser(description="Build the HTML report of synthetic trials.")
    parser.add_argument("--trials", type=int, default=10_000)
    parser.add_argument("--json", default=None, help="Also write the figures here.")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        run = Path(tmp) / "bench-run"
        made = time.monotonic()
        synthesize(run, args.trials)
        made = time.monotonic() - made
        # the rows a run lands (runs, trials, checks and tags), from the run as read once
        rows, rows_cpu = time.monotonic(), time.process_time()
        loaded = import_run(open_store(None, Path(tmp)), run)
        rows, rows_cpu = time.monotonic() - rows, time.process_time() - rows_cpu
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        start, cpu = time.monotonic(), time.process_time()
        index = build_report([loaded], Path(tmp) / "site")  # the same run: not read again
        seconds, cpu = time.monotonic() - start, time.process_time() - cpu
        after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the trial pages' workers
        workers = after.ru_utime + after.ru_stime - children.ru_utime - children.ru_stime
        size = index.stat().st_size
        pages = sum(1 for _ in index.parent.rglob("*.html"))
    table = Table("figure", "value", "budget", title="HTML report")
    table.add_row("trials", f"{args.trials:,}", "")
    table.add_row("synthesis seconds (not counted)", f"{made:.2f}", "")
    table.add_row("database rows seconds (SQLite; reading the run too)", f"{rows:.2f}", "")
    table.add_row("report build seconds", f"{seconds:.2f}", "")
    table.add_row("rows + report seconds", f"{rows + seconds:.2f}", f"<= {BUDGET_SECONDS:.0f}")
    table.add_row("database rows CPU seconds", f"{rows_cpu:.2f}", "")
    table.add_row("build CPU seconds: main process", f"{cpu:.2f}", "")
    table.add_row("build CPU seconds: page workers", f"{workers:.2f}", "")
    table.add_row("leaderboard bytes", f"{size:,}", f"< {BUDGET_LEADERBOARD_BYTES:,}")
    table.add_row("pages", f"{pages:,}", "")
    publish(
        table,
        {
            "trials": args.trials,
            "db_rows_seconds": round(rows, 3),
            "db_rows_cpu_seconds": round(rows_cpu, 3),
            "build_seconds": round(seconds, 3),
            "total_seconds": round(rows + seconds, 3),
            "build_cpu_seconds": round(cpu, 3),
            "worker_cpu_seconds": round(workers, 3),
            "leaderboard_bytes": size,
            "pages": pages,
            "within_budget": rows + seconds <= BUDGET_SECONDS and size < BUDGET_LEADERBOARD_BYTES,
        },
        args.json,
    )


if __name__ == "__main__":
    main()
