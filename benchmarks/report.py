"""What every benchmark ends with: its table for people, its figures as JSON for programs;
run as a script, the HTML report's benchmark: `python benchmarks/report.py [--trials N]`
builds the report of a run of N synthetic trials (repair, generate and netpol tracks) from
its directory and lands its rows in a SQLite results database while the pages are written
(`build_report(..., alongside=...)`, as a caller holding both does), and prints the
seconds of each part and of all, the CPU of the main process and of its children (the
page writers), the load average, and the leaderboard page's size (budget: 10 s for all,
1 MB). `--run DIR` keeps the synthetic run for the next time; `--serial` reads the run and
lands the rows before the report instead, to compare."""

import json
import os

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
# every fifth task of the generate track, every tenth (from the 7th) of the netpol track, so
# the leaderboard's track sections (report/tracks.py) are built as a real report builds them
GENERATE_TYPES = ("role", "configmap", "secret", "serviceaccount", "deployment")
GENERATE_TIERS = ("easy", "intermediate", "advanced")
NETPOL_FAULTS = ("remove-ingress", "change-port", "remove-ingress+change-port")
STAGES = ("S0", "S1", "S2", "S3", "S4")
BUDGET_SECONDS = 10.0
BUDGET_LEADERBOARD_BYTES = 1024 * 1024


def track_of(n: int) -> str:
    return "generate" if n % 5 == 0 else "netpol" if n % 10 == 7 else "repair"


def _generate(rng, passed: bool):
    """A GenerateOutcome as generate/trials.py writes one: passed, or failed at a stage."""
    from kubeproof.results.generate import GenerateOutcome, StageOutcome, Weights, composite

    failed = None if passed else rng.choice(STAGES)
    upto = STAGES if failed is None else STAGES[: STAGES.index(failed) + 1]
    under, over = (rng.randint(0, 2), rng.randint(0, 2)) if failed == "S4" else (0, 0)
    stages = [
        StageOutcome(
            stage=s,
            passed=s != failed,
            reason="invalid_yaml: synthetic" if s == failed == "S0" else "ok",
            under_grant=under if s == "S4" else 0,
            over_grant=over if s == "S4" else 0,
        )
        for s in upto
    ]
    done = {s.stage for s in stages if s.passed}
    ev, ov, acc = int("S2" in done), int("S3" in done), int("S4" in done)
    weights = Weights()
    return GenerateOutcome(
        prompt="full",
        stages=stages,
        failed_at=failed,
        strict_pass=failed is None,
        ev=ev,
        ov=ov,
        acc=acc,
        weights=weights,
        p=composite(weights, ev, ov, None),
        p_terms=["ev", "ov"],
        under_grant=under,
        over_grant=over,
    )


def _netpol(rng, n: int, passed: bool):
    from kubeproof.results.netpol import NetpolOutcome

    return NetpolOutcome(
        mode="netarena",
        topology="online-boutique",
        faults=NETPOL_FAULTS[n % len(NETPOL_FAULTS)].split("+"),
        correct=passed,
        netarena_safe=rng.random() > 0.05,
        safe=rng.random() > 0.1,
        iterations=rng.randint(1, 10),
        cap=10,
    )


def synthesize(root, trials: int, seed: int = 1):
    """A run directory of `trials` typed TrialResults (tasks x AGENTS), each with a
    three-step trajectory and a verifier log, as `kubeproof run` lays them out; a fifth of
    the tasks are of the generate track and a tenth of the netpol track, with the outcomes
    their runs record."""
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
        track = track_of(n)
        if track == "generate":
            kind, tier = GENERATE_TYPES[n // 5 % 5], GENERATE_TIERS[n // 25 % 3]
            task, area, difficulty = f"generate-v2-{kind}-{tier}-create-{n}", kind, tier
        elif track == "netpol":
            fault = NETPOL_FAULTS[n % len(NETPOL_FAULTS)]
            task = f"netpol/v1/online-boutique/ingress/netarena/{fault}/{n}"
            area, difficulty = "online-boutique", "netarena"
        else:
            area, difficulty = AREAS[n % len(AREAS)], DIFFICULTIES[n % 3]
            task = f"repair/{area}/task-{n}"
        expected = "declined" if n % 25 == 1 else "resolved"
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
                area=area,
                difficulty=difficulty,
                track=track,
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
                generate=_generate(rng, passed) if track == "generate" else None,
                netpol=_netpol(rng, n, passed) if track == "netpol" else None,
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
    from kubeproof.results.db import open_store
    from kubeproof.results.load import load_run

    parser = argparse.ArgumentParser(description="Build the HTML report of synthetic trials.")
    parser.add_argument("--trials", type=int, default=10_000)
    parser.add_argument("--json", default=None, help="Also write the figures here.")
    parser.add_argument(
        "--run",
        type=Path,
        default=None,
        help="Synthesize the run here if it is not there yet, else reuse it (synthesis takes "
        "a minute or more on a busy machine).",
    )
    parser.add_argument(
        "--serial",
        action="store_true",
        help="Land the rows before building the report rather than while its trial pages "
        "are written (to compare).",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        run = args.run or Path(tmp) / "bench-run"
        made = time.monotonic()
        if not (run / "run.json").is_file():
            synthesize(run, args.trials)
        made = time.monotonic() - made
        phases: dict[str, float] = {}
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        start, cpu = time.monotonic(), time.process_time()

        def rows(runs: list) -> None:  # the rows a run lands (runs, trials, checks and tags)
            store = open_store(None, Path(tmp))
            for loaded in runs:
                store.import_run(loaded.name, str(loaded.dir), loaded.run, loaded.trials)

        if args.serial:  # read, land the rows, then build the report of the run as read
            loaded = [load_run(run)]
            phases["reading the run (before the report)"] = time.monotonic() - start
            begun = time.monotonic()
            rows(loaded)
            phases["alongside"] = time.monotonic() - begun
            index = build_report(loaded, Path(tmp) / "site", phases=phases)
        else:  # the run's directory: read while the trial pages' workers start at once
            index = build_report([run], Path(tmp) / "site", alongside=rows, phases=phases)
        seconds, cpu = time.monotonic() - start, time.process_time() - cpu
        after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the trial pages' workers
        workers = after.ru_utime + after.ru_stime - children.ru_utime - children.ru_stime
        size = index.stat().st_size
        pages = sum(1 for _ in index.parent.rglob("*.html"))
        trials = sum(1 for _ in (index.parent / "trials").iterdir())  # a page each
    load = os.getloadavg()[0]
    table = Table("figure", "value", "budget", title="HTML report and database rows")
    table.add_row("trials", f"{trials:,}", "")
    table.add_row("synthesis seconds (not counted)", f"{made:.2f}", "")
    for name, value in phases.items():
        shown = "database rows (SQLite)" if name == "alongside" else name
        where = " (before the report)" if args.serial and name == "alongside" else ""
        table.add_row(f"  {shown}{where} seconds", f"{value:.2f}", "")
    table.add_row("rows + report seconds", f"{seconds:.2f}", f"<= {BUDGET_SECONDS:.0f}")
    table.add_row("CPU seconds: main process", f"{cpu:.2f}", "")
    table.add_row("CPU seconds: page writers (children)", f"{workers:.2f}", "")
    table.add_row("load average (1 min) at the end", f"{load:.1f}", "")
    table.add_row("leaderboard bytes", f"{size:,}", f"< {BUDGET_LEADERBOARD_BYTES:,}")
    table.add_row("pages", f"{pages:,}", "")
    publish(
        table,
        {
            "trials": trials,
            "serial": args.serial,
            "phases_seconds": {k: round(v, 3) for k, v in phases.items()},
            "total_seconds": round(seconds, 3),
            "main_cpu_seconds": round(cpu, 3),
            "worker_cpu_seconds": round(workers, 3),
            "load_average": round(load, 2),
            "leaderboard_bytes": size,
            "pages": pages,
            "within_budget": seconds <= BUDGET_SECONDS and size < BUDGET_LEADERBOARD_BYTES,
        },
        args.json,
    )


if __name__ == "__main__":
    main()
