"""`kubeproof runs list|show|import|export|delete`: runs in the results database."""

from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from kubeproof.cli.output import Format, console, emit, stderr
from kubeproof.cli.runs_store import (
    DB,
    RUN_HELP,
    RUNS_DIR,
    WHERE,
    is_run_dir,
    named,
    store_for,
)
from kubeproof.cli.track_tables import generate_table, netpol_table
from kubeproof.errors import KubeproofError
from kubeproof.results import TrialResult, export
from kubeproof.results.db import Store, import_run
from kubeproof.results.db.filters import TrialFilter
from kubeproof.results.stats import Outcome, Rates, table
from kubeproof.results.stats.generate_track import GenerateTables, tables
from kubeproof.results.stats.netpol_track import Row, summarize_keyed
from kubeproof.results.stats.tracks import Keyed, by_track

# a trial row's columns in `runs show -o json` (database ids differ between databases)
SHOWN = [c for c in export.COLUMNS if c != "run"]


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.0f}%"


def _num(value: float | None, unit: str = "") -> str:
    return "-" if value is None else f"{value:,.1f}{unit}"


def rates_table(title: str, rows: list[Rates]) -> Table:
    spent = any(r.tokens is not None for r in rows)
    columns = ["AGENT", title, "PASS", "95% CI", "SAFE", "STEPS", "TIME", "ERRORS"]
    t = Table(*columns, *(["TOKENS", "COST"] if spent else []), box=None)
    for r in rows:
        extra = []
        if spent:
            cost = (
                "-" if r.tokens is None else ("?" if r.cost_usd is None else f"${r.cost_usd:.4f}")
            )
            extra = ["-" if r.tokens is None else f"{r.tokens:,.0f}", cost]
        t.add_row(
            r.agent,
            r.value,
            f"{r.passed}/{r.judged} {_pct(r.pass_rate)}",
            "-" if r.ci_low is None else f"{_pct(r.ci_low)}-{_pct(r.ci_high)}",
            _pct(r.safe_rate),
            _num(r.steps),
            _num(r.seconds, "s"),
            str(r.errors) if r.errors else "",
            *extra,
        )
    return t


def list_(
    db: str = DB,
    runs_dir: Path = RUNS_DIR,
    output: Format = typer.Option(Format.text, "--output", "-o", help="Output format."),
) -> None:
    """The runs in the results database, oldest first.

    A run without an end time was killed before it ended (`kubeproof runs resume` finishes
    it). Exit codes: 0 listed, 1 the database cannot be opened."""
    found = store_for(db, runs_dir).runs()
    if emit(found, output):
        return
    t = Table("NAME", "KIND", "STARTED", "ENDED", "AGENTS", "TASKS", "TRIALS", "SCORE", box=None)
    for r in found:
        t.add_row(
            r["name"],
            r["kind"],
            r["started_at"] or "-",
            r["ended_at"] or "[yellow]unfinished[/]",
            str(r["agents"]),
            str(r["tasks"]),
            str(r["trials"]),
            str(r["score"]),
        )
    console.print(t)


TRACKED = ("generate", "netpol")  # the tracks with tables of their own (track_tables.py)


def _tracks(trials: list[dict[str, Any]]) -> tuple[Keyed, GenerateTables | None, list[Row]]:
    """The generate track's trials (keyed by agent label, as the rates are) and tables, and
    the netpol track's rows: what the report's track sections show (report/tracks.py)."""
    keyed = [
        (t["agent_label"], TrialResult.from_record(t["record"]))
        for t in trials
        if t["track"] in TRACKED or any(k in t["record"] for k in TRACKED)
    ]
    generate, netpol = by_track(keyed)
    return generate, tables(generate) if generate else None, summarize_keyed(netpol)


def _show(
    store: Store, name: str, only: TrialFilter | None
) -> tuple[dict[str, Any], Keyed, GenerateTables | None, list[Row]]:
    run = store.run(name)
    trials = store.trials(name, only)
    generate, summary, netpol = _tracks(trials)
    data = {
        "run": {k: run[k] for k in ("name", "dir", "kind", "started_at", "ended_at")}
        | {"record": run["record"]},
        "stats": [r.model_dump() for r in table([Outcome.from_row(t) for t in trials])],
        "generate_summary": summary.model_dump(mode="json") if summary else None,
        "netpol_summary": [r.model_dump(mode="json") for r in netpol],
        "trials": [{k: t[k] for k in SHOWN} for t in trials],
    }
    return data, generate, summary, netpol


def show_data(store: Store, name: str, only: TrialFilter | None = None) -> dict[str, Any]:
    """What `runs show -o json` prints: the run, its statistics, the generate and netpol
    tracks' tables (None and [] without trials of the track) and its trials."""
    return _show(store, name, only)[0]


def show(
    run: str = typer.Argument(..., help=RUN_HELP),
    where: list[str] = WHERE,
    db: str = DB,
    runs_dir: Path = RUNS_DIR,
    output: Format = typer.Option(Format.text, "--output", "-o", help="Output format."),
) -> None:
    """A run's results per agent and per slice (track, area, difficulty, tag), and the
    generate and netpol tracks' tables when it holds trials of them (as the report shows).

    Pass rates come with Wilson 95 % intervals; errors and invalid tasks are counted apart
    and left out of every rate; pass@k and pass^k appear when tasks were repeated
    (docs/results.md, "Statistics"). Exit codes: 0 shown, 1 no such run or the database
    cannot be opened."""
    store = store_for(db, runs_dir, run)
    only = TrialFilter.parse(where)
    data, generate, summary, netpol = _show(store, named(store, run), only)
    if emit(data, output):
        return
    meta = data["run"]
    record = meta["record"]
    console.print(
        f"[bold]{meta['name']}[/] ({meta['kind']}) {meta['started_at'] or '?'} → "
        f"{meta['ended_at'] or '[yellow]unfinished[/]'}; timing {record.get('timing', '?')}; "
        f"kubeproof {(record.get('versions') or {}).get('git_commit', '?')}",
        highlight=False,
    )
    rows = [Rates.model_validate(r) for r in data["stats"]]
    for slice_ in ("all", "track", "area", "difficulty", "tag"):
        chosen = [r for r in rows if r.slice == slice_]
        if chosen:
            console.print(rates_table(slice_.upper(), chosen))
    curves = [r for r in rows if r.slice == "all" and r.pass_k]
    for r in curves:
        console.print(
            f"{r.agent}: "
            + ", ".join(
                f"pass@{p.k} {_pct(p.pass_at_k)} pass^{p.k} {_pct(p.pass_hat_k)}" for p in r.pass_k
            ),
            highlight=False,
        )
    if summary is not None:  # the report's track sections (docs/generate.md, "Reports")
        console.print("[bold]GENERATE TRACK[/]")
        console.print(generate_table(generate, summary))
    if netpol:  # (docs/netpol.md, "Scores")
        console.print("[bold]NETPOL TRACK[/] (NetArena's leaderboard order)")
        console.print(netpol_table(netpol))


def import_(
    dirs: list[Path] = typer.Argument(
        ..., help="Run directories, or directories holding run directories (e.g. runs/)."
    ),
    name: str = typer.Option(
        None, "--name", help="The name to give the run (one DIR only); default: its directory's."
    ),
    db: str = DB,
    runs_dir: Path = RUNS_DIR,
    output: Format = typer.Option(Format.text, "--output", "-o", help="Output format."),
) -> None:
    """Load run directories into the results database.

    Runs from another machine or an older kubeproof read as they are: fields they lack are
    left empty; a run killed before its end (no run.json) is loaded from its trials. A run
    imported again replaces its rows. Files are read without following symlinks, size
    limited and strictly parsed. Exit codes: 0 all imported, 1 any directory failed (the
    others are still imported)."""
    found = [d for given in dirs for d in ([given] if is_run_dir(given) else _children(given))]
    if name and len(found) != 1:
        raise KubeproofError("--name needs exactly one run directory")
    store = store_for(db, runs_dir, *map(str, found))
    report: list[dict[str, Any]] = []
    failed = 0
    for d in found:
        try:
            loaded = import_run(store, d, name)
        except KubeproofError as exc:
            failed += 1
            stderr.print(f"[red]{d}[/]: {exc}", highlight=False, markup=False)
            continue
        report.append(
            {
                "dir": str(d),
                "name": name or loaded.name,
                "trials": len(loaded.trials),
                "complete": loaded.complete,
                "skipped": loaded.skipped,
            }
        )
    if not found:
        raise KubeproofError(f"no run directories in {', '.join(map(str, dirs))}")
    if not emit(report, output):
        for r in report:
            note = "" if r["complete"] else " (unfinished: no run.json)"
            console.print(f"{r['name']}: {r['trials']} trials{note}", highlight=False)
            for s in r["skipped"]:
                console.print(f"  skipped {s}", highlight=False)
    if failed:
        raise typer.Exit(1)


def _children(parent: Path) -> list[Path]:
    if not parent.is_dir():
        raise KubeproofError(f"{parent}: not a directory")
    return sorted(c for c in parent.iterdir() if not c.is_symlink() and is_run_dir(c))


def export_(
    run: str = typer.Argument(..., help=RUN_HELP),
    fmt: export.ExportFormat = typer.Option(
        ..., "--format", "-f", help="csv, jsonl, parquet, inspect, atif or sft."
    ),
    out: Path = typer.Option(
        ..., "--output", "-o", help="The file to write (a directory for inspect and atif)."
    ),
    where: list[str] = WHERE,
    db: str = DB,
    runs_dir: Path = RUNS_DIR,
    tasks: Path = typer.Option(
        Path("tasks"), "--tasks", help="The task library, for instructions (inspect, atif, sft)."
    ),
) -> None:
    """Write a run's trials to a file: CSV or Parquet (one row a trial: agent, task, track,
    area, difficulty, tags, verdict, score, safe, steps, time, tokens, cost, ...) or JSONL
    (each trial's whole record) — or, from the run's directory, an Inspect AI log per agent
    (`inspect`: `inspect view DIR`), Harbor ATIF trajectories (`atif`) or chat-format JSONL
    of the resolved trajectories for fine-tuning (`sft`; --where does not apply to these).
    Exit codes: 0 written, 1 no such run (or its directory is gone)."""
    store = store_for(db, runs_dir, run)
    name = named(store, run)
    if fmt in export.FROM_DIRECTORY:
        _export_directory(Path(store.run(name)["dir"]), fmt, out, tasks)
        return
    only = TrialFilter.parse(where)
    n = export.write(name, store.trials(name, only), fmt, out)
    console.print(f"{n} trials → {out}", highlight=False, soft_wrap=True)


def _export_directory(directory: Path, fmt: export.ExportFormat, out: Path, tasks: Path) -> None:
    from kubeproof.report.load import instruction
    from kubeproof.results import exports
    from kubeproof.results.load import load_run

    if not directory.is_dir():
        raise KubeproofError(f"{directory}: the run's directory is gone")
    library = tasks if tasks.is_dir() else None
    ids = {t.task for _, t in load_run(directory).trials}
    told = {i: text for i in ids if (text := instruction(library, i))}
    if fmt is export.ExportFormat.inspect:
        written = exports.write_inspect(directory, out, told)
        console.print(f"{len(written)} Inspect logs → {out} (inspect view {out})", highlight=False)
    elif fmt is export.ExportFormat.atif:
        written = exports.write_atif(directory, out, told)
        console.print(f"{len(written)} ATIF trajectories → {out}", highlight=False, soft_wrap=True)
    else:
        out.unlink(missing_ok=True)  # written anew, not appended to an older export
        n = exports.write_sft(directory, out, told)
        console.print(f"{n} resolved trajectories → {out}", highlight=False, soft_wrap=True)


def delete(
    run: str = typer.Argument(..., help="The run's name in the database."),
    db: str = DB,
    runs_dir: Path = RUNS_DIR,
) -> None:
    """Remove a run from the results database (its directory is left alone). Exit codes:
    0 removed, 1 no such run."""
    store_for(db, runs_dir).delete_run(run)
    console.print(f"{run}: removed from the database", highlight=False)
