"""`kubeproof run`: trials of agents on tasks, into a run directory."""

import threading
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import typer
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from kubeproof.agents.spec import KINDS, AgentsFile, parse
from kubeproof.cli import report
from kubeproof.cli.output import Format, console, emit, stderr
from kubeproof.errors import KubeproofError
from kubeproof.evidence import keys
from kubeproof.nodesim.timing import profile as timing_profile
from kubeproof.results import Group, RunPaths, RunResult, TrialResult
from kubeproof.results.db import ENV as DB_ENV
from kubeproof.results.db import Landing
from kubeproof.runner.provision import source_for
from kubeproof.runner.run import RunOptions, execute, plan, write_run
from kubeproof.runner.trial import TrialPlan
from kubeproof.tasks.select import select

ERRORED = 1
MARK = {"resolved": "[green]✓[/]", "declined": "[cyan]⊘[/]", "failed": "[red]✗[/]"}


def default_out(prefix: str = "") -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    return Path("runs") / f"{prefix}{stamp}"


def run_plans(
    plans: list[TrialPlan],
    cluster: str,
    jobs: int,
    retries: int,
    quiet: bool,
    signing_key: Ed25519PrivateKey | None = None,
    timing: str = "real",
    landing: Landing | None = None,
    then: Callable[[TrialResult], None] | None = None,
):
    """Execute with a progress bar on stderr and a line per finished trial; each finished
    trial also lands in the results database (`landing`), so a killed run loses none, and
    is handed to `then` (tasks validate records each task as soon as it is proven)."""
    source = source_for(cluster, timing)
    lock = threading.Lock()
    progress = Progress(
        TextColumn("[bold]trials"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.description}"),
        console=stderr,
        disable=quiet,
    )
    bar = progress.add_task("", total=len(plans))

    def done(p: TrialPlan, result: TrialResult) -> None:
        with lock:
            mark = MARK.get(result.verdict, "[yellow]![/]")
            seconds = result.timings.total or 0
            progress.console.print(
                f"{mark} {p.name}: {result.verdict} (score {result.score}, {seconds:.1f}s)"
                + (f" — {escape(result.reason or '')}" if result.verdict not in MARK else ""),
                highlight=False,
            )
            progress.advance(bar)
            if landing is not None:
                landing.trial(result)
            if then is not None:
                then(result)

    options = RunOptions(
        jobs=jobs,
        retries=retries,
        on_start=lambda p: progress.update(bar, description=p.name),
        on_done=done,
        signing_key=signing_key,
    )
    try:
        with progress:
            return execute(plans, source, options)
    except KeyboardInterrupt:
        options.stop.set()
        raise
    finally:
        source.close()


def _table(title: str, groups: dict[str, Group]) -> Table:
    spent = any(g.tokens is not None for g in groups.values())
    columns = ["TRIALS", "SCORE", "RESOLVED", "UNSAFE", "ERRORS"]
    table = Table(title, *columns, *(["TOKENS", "COST"] if spent else []), box=None)
    for key, g in sorted(groups.items()):
        extra = []
        if spent:
            cost = g.cost_usd
            extra = [
                f"{g.tokens:,}" if g.tokens is not None else "",
                "" if g.tokens is None else ("?" if cost is None else f"${cost:.4f}"),
            ]
        table.add_row(
            str(key),
            str(g.trials),
            f"{g.score / g.trials:.2f}" if g.trials else "-",
            str(g.resolved),
            str(g.unsafe) if g.unsafe else "",
            str(g.errors) if g.errors else "",
            *extra,
        )
    return table


def run(
    tasks: list[str] = typer.Option(
        None,
        "--tasks",
        "-t",
        help="Task directories, folders of tasks, glob patterns over task ids "
        "('repair/**'), or a suite .txt listing them. Repeatable. Default: every task "
        "under tasks/.",
    ),
    agents: list[str] = typer.Option(
        ["oracle"],
        "--agent",
        "-a",
        help=f"Agent spec, repeatable: {', '.join(KINDS)}. See docs/agents.md.",
    ),
    agents_file: Path = typer.Option(
        None,
        "--agents-file",
        help="TOML file of named agents and prices (default: ./kubeproof-agents.toml if "
        "present). API keys come only from the environment.",
    ),
    jobs: int = typer.Option(1, "--jobs", "-j", min=1, help="Trials at once."),
    repeats: int = typer.Option(1, "--repeats", "-k", min=1, help="Trials per task and agent."),
    cluster: str = typer.Option(
        "embedded",
        "--cluster",
        help="`embedded` (a fresh cluster per trial) or `kubeconfig:PATH[#CONTEXT]` "
        "(one existing cluster, trials one at a time).",
    ),
    out: Path = typer.Option(None, "--out", help="Run directory (default runs/<UTC time>)."),
    retries: int = typer.Option(
        2, "--retries", min=0, help="Retries of a trial that ends in `error`."
    ),
    protocol: bool = typer.Option(
        False,
        "--protocol",
        help="Evidence protocol mode: agents are offered `prescribe` and `report` (tools for "
        "model agents, commands in the sandbox for the rest) and each trial reports its "
        "protocol compliance.",
    ),
    evidence_key: Path = typer.Option(
        None,
        "--evidence-key",
        help="Ed25519 key (PEM) that signs the evidence chains. Default: "
        "$KUBEPROOF_EVIDENCE_KEY, $KUBEPROOF_EVIDENCE_KEY_FILE, else your per-user key "
        "(`kubeproof evidence keygen`).",
    ),
    timing: str = typer.Option(
        "real",
        "--timing",
        help="Simulated kubelet timing on embedded clusters: `real` (the kubelet's own "
        "back-offs and grace periods, as agents meet them on a real cluster) or `fast` "
        "(every duration / 10; recorded in each trial, not comparable with real results).",
    ),
    db: str = typer.Option(
        None,
        "--db",
        help=f"Results database: a PostgreSQL URL (postgresql://user@host/db) or an SQLite "
        f"file. Default: ${DB_ENV}, else kubeproof.db beside the run directory.",
    ),
    output: Format = typer.Option(Format.text, "--output", "-o", help="Output format."),
) -> None:
    """Run agents on tasks and judge every trial.

    Each trial gets a fresh cluster, the task's broken state, a sandboxed agent with a
    scoped kubeconfig, and a verdict from checks, contracts and safety rules. Writes
    run.json and, per trial, trial.json, trajectory.jsonl and verifier.log; each trial lands
    in the results database as it finishes (`kubeproof runs`). Exits 1 if any trial ended in
    `error` or found its task `invalid`.
    """
    named = AgentsFile.load(agents_file)
    resolved = [parse(spec, named) for spec in agents]
    selected = select(tasks or [])
    if not selected:
        raise KubeproofError("no tasks selected")
    out = out or default_out()
    out.mkdir(parents=True, exist_ok=True)
    key = keys.load_signing_key(evidence_key)
    plans = plan(selected, resolved, repeats, out, protocol=protocol)
    meta = {
        "started_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "agents": agents,
        "agents_file": str(named.path) if named.path else None,
        "tasks": [t.id for t in selected],
        "repeats": repeats,
        "jobs": jobs,
        "cluster": cluster,
        "dir": str(out),
        "protocol": protocol,
        "timing": timing_profile(timing).name,
        # every trial's chain is signed with this key: compare the fingerprint with yours
        "evidence": {
            "fingerprint": keys.fingerprint(key),
            "public_key": keys.public_pem(key).decode(),
            "key_source": keys.key_source(evidence_key),
        },
    }
    planned = RunResult.model_validate(meta)
    planned.write(RunPaths(out).plan)  # what `kubeproof runs resume` re-runs from
    landing = Landing.open(db, out, planned, warn)
    quiet = output is not Format.text
    records = run_plans(plans, cluster, jobs, retries, quiet, key, timing, landing)
    result = write_run(out, meta, records, key)
    if landing is not None:
        landing.finish(result)
    report.after_run(out, warn)  # <run>/report/index.html, printed on stderr
    if not emit(result.record(), output):
        summary = result.summary
        console.print(_table("AREA", summary.by_area))
        console.print(_table("DIFFICULTY", summary.by_difficulty))
        console.print(_table("AGENT", summary.by_agent))
        console.print(f"run directory: {out}")
    if summary_errors(result):
        raise typer.Exit(ERRORED)


def warn(message: str) -> None:
    stderr.print(f"[yellow]warning:[/] {escape(message)}")


def summary_errors(result: RunResult) -> int:
    return result.summary.total.errors
