"""`kubeproof tasks`: list, show and lint task directories."""

import json
import time
from collections import Counter
from pathlib import Path

import typer
from rich.markup import escape
from rich.table import Table

from kubeproof.cli import tasks_netpol
from kubeproof.cli.output import Format, console, emit, err, stderr
from kubeproof.errors import KubeproofError
from kubeproof.runner import validate as proving
from kubeproof.tasks import Task, TaskFile, discover, inspect
from kubeproof.tasks.select import select

app = typer.Typer(
    help="List, show, lint and validate tasks (Harbor layout + a [kubeproof] section).",
    no_args_is_help=True,
)
OUTPUT = typer.Option(Format.text, "--output", "-o", help="Output format.")
PATHS = typer.Argument(None, help="Task directories or folders holding them (default: tasks/).")


def _roots(paths: list[Path] | None) -> list[Path]:
    return discover(paths or [Path("tasks")])


@app.command("list")
def list_(paths: list[Path] = PATHS, output: Format = OUTPUT) -> None:
    """List tasks with track, area and difficulty."""
    rows = []
    for root in _roots(paths):
        task, problems = inspect(root)
        spec = task.spec.kubeproof if task else None
        rows.append(
            {
                "id": task.id if task else root.name,
                "path": str(root),
                "track": spec.track if spec else None,
                "area": spec.area if spec else None,
                "difficulty": spec.difficulty if spec else None,
                "expected": spec.expected if spec else None,
                "tags": spec.tags if spec else [],
                "title": spec.title if spec else None,
                "shortcuts": len(task.shortcuts) if task else 0,
                "alternatives": len(task.alternatives) if task else 0,
                "problems": len(problems),
                "warnings": len(task.warnings) if task else 0,
            }
        )
    if emit(rows, output):
        return
    columns = ("ID", "AREA", "DIFFICULTY", "TITLE", "SHORTCUTS", "ALTERNATIVES")
    table = Table(*columns, "PROBLEMS", "WARNINGS", box=None)
    for r in rows:
        table.add_row(
            r["id"],
            str(r["area"]),
            str(r["difficulty"]),
            str(r["title"]),
            str(r["shortcuts"]),
            str(r["alternatives"]),
            str(r["problems"]) if r["problems"] else "",
            str(r["warnings"]) if r["warnings"] else "",
        )
    console.print(table)


@app.command()
def show(
    path: Path = typer.Argument(..., help="A task directory."), output: Format = OUTPUT
) -> None:
    """Show one task: its metadata, instruction and files."""
    task, problems = inspect(path)
    if task is None:
        for p in problems:
            err(p)
        raise typer.Exit(1)
    data = {
        "id": task.id,
        "path": str(task.root),
        **task.spec.model_dump(mode="json"),
        "instruction": task.instruction,
        "files": {
            "setup": [str(p) for p in task.setup],
            "break": [str(p) for p in task.breaks],
            "solution": str(task.solution),
            "verifier": str(task.verifier),
            "shortcuts": [str(p) for p in task.shortcuts],
            "alternatives": [str(p) for p in task.alternatives],
        },
        "problems": [str(p) for p in problems],
        "warnings": [str(p) for p in task.warnings],
    }
    if emit(data, output):
        return
    spec = task.spec.kubeproof
    console.print(f"[bold]{task.id}[/]  {spec.title}")
    console.print(
        f"track {spec.track} · area {spec.area} · {spec.difficulty} · expected {spec.expected}"
    )
    console.print(task.instruction, markup=False)
    console.print(f"{len(task.shortcuts)} shortcuts, {len(task.alternatives)} alternatives")
    for p in problems:
        err(p)
    for p in task.warnings:
        stderr.print(f"warning: {p}", highlight=False, markup=False)


@app.command()
def lint(
    paths: list[Path] = PATHS,
    strict: bool = typer.Option(False, "--strict", help="Exit 1 on warnings too."),
    output: Format = OUTPUT,
) -> None:
    """Check task structure; print `path:line: message` per problem and `path:line:
    warning: message` per warning (a task below the library's targets, such as fewer than
    4 shortcuts or 2 alternatives). Exits 1 on any problem, or with --strict any warning."""
    found = []
    for root in _roots(paths):
        task, problems = inspect(root)
        found += problems + (task.warnings if task else [])
    rows = [
        {
            "path": str(p.path),
            "line": p.line,
            "severity": "warning" if p.warning else "error",
            "message": p.message,
        }
        for p in found
    ]
    errors = sum(not p.warning for p in found)
    if not emit(rows, output):
        for p in found:
            typer.echo(str(p))
        console.print(
            f"{errors} problem(s), {len(found) - errors} warning(s)" if found else "no problems"
        )
    if errors or (strict and found):
        raise typer.Exit(1)


@app.command()
def schema() -> None:
    """Print the JSON schema of task.toml."""
    typer.echo(json.dumps(TaskFile.model_json_schema(), indent=2))


VALIDATE_HELP = """Prove tasks valid on live clusters: the broken state holds, the oracle
scores 1, a no-op scores 0, every shortcut (tests/shortcuts/*.sh) scores 0 and is caught by
a named contract or safety rule, every alternative (tests/alternatives/*.sh, another valid
fix) scores 1, and a second round gives the same verdicts. Exits 1 if any task is not valid.

Which tasks: those named; `--all` (the whole library; `make validate` runs it with
`--write-record`); `--changed`, those whose files differ from what tasks/VALIDATED.json
says was proven; `--sample N`, N more stratified by area and rotating with `--seed`.
Nothing named and no flag means every task. `--max-trials` caps a run: sampled tasks are
dropped to fit, and if the named and changed tasks alone do not fit the command fails
before starting a cluster. Each library task that proves valid is noted in the record
(unless --no-record), with the hash of the files its trials used: commit the record.

`--suite netpol` (or `netarena-k8s`) with `--sample N`: N generated netpol tasks instead,
stratified by topology and fault type and drawn from `--seed` (default 0), each played by
the oracle, a no-op and an allow-all shortcut one after another on one cluster (--jobs
does not apply); valid when the broken state has the generated mismatches, the oracle
restores the intent, the no-op fails and the shortcut is correct but unsafe
(docs/netpol.md, "Validation"). Writes validation.json in --out as each task is judged;
run again with the same --out, it goes on where it stopped."""


@app.command(help=VALIDATE_HELP)
def validate(
    tasks: list[str] = typer.Argument(
        None, help="Task directories, folders, or id patterns (default: every task)."
    ),
    all_: bool = typer.Option(False, "--all", help="Every task under tasks/."),
    changed: bool = typer.Option(
        False,
        "--changed",
        help="Add the tasks whose files differ from the record (every task if it has none).",
    ),
    sample: int = typer.Option(
        0, "--sample", min=0, help="Add N tasks not otherwise chosen, one per area in turn."
    ),
    seed: str = typer.Option(
        None, "--seed", help="What the sample rotates with (default: the git commit)."
    ),
    max_trials: int = typer.Option(
        None, "--max-trials", min=1, help="Most trials to run; see above for what happens."
    ),
    record: Path = typer.Option(
        proving.RECORD, "--record", help="The record of what was proven, per task."
    ),
    write_record: bool = typer.Option(
        False, "--write-record", help="With --all: write the record if every task is valid."
    ),
    no_record: bool = typer.Option(
        False,
        "--no-record",
        help="Do not note the library tasks that proved valid in the record (by default each "
        "one's entry is updated, so the record says which content was last proven).",
    ),
    dry_run: bool = typer.Option(
        False, "--dry-run", help="Print the tasks chosen, why, and their trials; run nothing."
    ),
    jobs: int = typer.Option(2, "--jobs", "-j", min=1, help="Trials at once."),
    cluster: str = typer.Option("embedded", "--cluster", help="embedded or kubeconfig:PATH."),
    out: Path = typer.Option(None, "--out", help="Run directory (default runs/validate-<time>)."),
    timing: str = typer.Option(
        "real",
        "--timing",
        help="Simulated kubelet timing: `real` (as agents meet it) or `fast` (every duration "
        "/ 10, for a quick look; the record keeps which).",
    ),
    suite: str = typer.Option(
        None, "--suite", help="A netpol suite to sample instead of the library (see below)."
    ),
    output: Format = OUTPUT,
) -> None:
    from kubeproof.cli.run import default_out, run_plans
    from kubeproof.runner.run import write_run

    if suite is not None:
        if tasks or all_ or changed or write_record or dry_run or max_trials:
            raise typer.BadParameter("--suite takes --sample, --seed, --out and -o only")
        return tasks_netpol.validate_suite(suite, sample, seed or "0", out, output)
    if write_record and not all_:
        raise typer.BadParameter("needs --all: the record says the whole library was proven")
    if all_ and (tasks or changed or sample):
        raise typer.BadParameter("--all is every task: name none, and no --changed or --sample")
    chosen = _choose(tasks or [], all_, changed, sample, seed, max_trials, record)
    selected = [t for t, _ in chosen]
    if dry_run:
        rows = [
            {"task": t.id, "selected": why, "trials": proving.trial_count(t)} for t, why in chosen
        ]
        if not emit(rows, output):
            for r in rows:
                typer.echo(f"{r['task']}  {r['trials']} trials  ({r['selected']})")
            typer.echo(f"{len(rows)} task(s), {sum(r['trials'] for r in rows)} trials")
        return
    if not selected:
        console.print(f"nothing to validate: no task differs from {record}")
        return
    out = out or default_out("validate-")
    out.mkdir(parents=True, exist_ok=True)
    trials = proving.plans(selected, out)
    reasons = Counter(why for _, why in chosen)
    stderr.print(
        f"validating {len(selected)} task(s), {len(trials)} trials: "
        + ", ".join(f"{n} {why}" for why, n in reasons.items()),
        highlight=False,
    )
    proven = {t.id: proving.digest(t) for t in selected}  # the files the trials will use

    def complete(task: Task, records: list[dict]) -> None:
        """A task whose trials are all in: judged now, and noted in the record if valid,
        so a run stopped half-way keeps every task it proved."""
        verdict = proving.judge(task, records)
        noted = []
        if not no_record:
            noted = proving.note_valid(record, [task], [verdict], records, proven)
        word = "valid" + (", recorded" if noted else "") if verdict["valid"] else "NOT VALID"
        stderr.print(f"{task.id}: {word}", highlight=False)

    tally = proving.TaskTally(selected, complete)
    began = time.monotonic()
    results = run_plans(
        trials, cluster, jobs, retries=2, quiet=output is not Format.text, timing=timing,
        then=lambda result: tally.trial(result.record()),
    )  # fmt: skip
    wall = time.monotonic() - began
    meta = {"validate": [t.id for t in selected], "dir": str(out), "timing": timing}
    write_run(out, meta, results)
    records = [r.record() for r in results]  # the judge reads them as trial.json holds them
    verdicts = [proving.judge(t, records) | {"selected": why} for t, why in chosen]
    (out / "validation.json").write_text(json.dumps(verdicts, indent=2) + "\n")
    valid = all(v["valid"] for v in verdicts)
    if write_record and valid:
        data = proving.record_of(selected, verdicts, records, jobs, wall, proven, timing)
        record.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    elif not no_record:
        noted = proving.note_valid(record, selected, verdicts, records, proven)
        if noted:
            stderr.print(f"recorded {len(noted)} valid task(s) in {record}", highlight=False)
    edited = [t.id for t in selected if proving.digest(t) != proven[t.id]]
    if (write_record or not no_record) and edited:
        stderr.print(
            f"not recorded, their files changed during the run: {', '.join(edited)}",
            highlight=False,
        )
    if not emit(verdicts, output):
        for v in verdicts:
            mark = "[green]valid[/]" if v["valid"] else "[red]NOT VALID[/]"
            console.print(f"{mark} {v['task']}")
            for p in v["proofs"]:
                sign = "[green]✓[/]" if p["ok"] else "[red]✗[/]"
                # reasons hold paths such as containers[name=api]: not rich markup
                detail = escape(f"{p['proof']}: {p['detail']}")
                console.print(f"  {sign} {detail}", highlight=False)
        console.print(f"run directory: {out} ({wall / 60:.1f} min)")
    if write_record:
        stderr.print(
            f"wrote {record}: commit it"
            if valid
            else f"{record} not written: not every task is valid"
        )
    if not valid:
        raise typer.Exit(1)


def _choose(
    named: list[str],
    all_: bool,
    changed: bool,
    sample: int,
    seed: str | None,
    max_trials: int | None,
    record: Path,
) -> list[tuple[Task, str]]:
    """The tasks to validate, in order, each with why it was chosen."""
    if all_ or not (named or changed or sample):
        return [(t, "in the library") for t in select([] if all_ else named)]
    chosen = [(t, "named") for t in select(named)] if named else []
    # the library is read only when it is needed, so tasks outside it validate from anywhere
    library = select([]) if changed or sample else []
    if changed:
        ids = {t.id for t, _ in chosen}
        differ = proving.changed(library, proving.read_record(record))
        chosen += [(t, f"changed since {record}") for t in differ if t.id not in ids]
    required = [t for t, _ in chosen]
    needed = sum(proving.trial_count(t) for t in required)
    if max_trials is not None and needed > max_trials:
        counts = Counter("named" if why == "named" else "changed" for _, why in chosen)
        raise KubeproofError(
            f"{counts['changed']} task(s) changed since {record}"
            + (f" and {counts['named']} named" if counts["named"] else "")
            + f" need {needed} trials, more than --max-trials {max_trials}",
            hint=f"validate them (`kubeproof tasks validate --changed`, which records each "
            f"task that proves valid) or the whole library (`make validate`), and commit {record}",
        )
    if sample:
        ids = {t.id for t in required}
        seed = seed or proving.git_commit()[0] or "kubeproof"
        picked = proving.sample([t for t in library if t.id not in ids], sample, seed)
        chosen += [
            (t, f"sampled (seed {seed[:12]})")
            for t in proving.fit(required, picked, max_trials)[len(required) :]
        ]
    return chosen


CATALOG = Path("docs/tasks-catalog.md")


@app.command()
def catalog(
    paths: list[Path] = PATHS,
    write: bool = typer.Option(False, "--write", help=f"Write {CATALOG} instead of printing."),
    check: bool = typer.Option(False, "--check", help=f"Exit 1 if {CATALOG} is out of date."),
) -> None:
    """Render the task catalog (area by difficulty table, one line per task) from the
    tasks' metadata."""
    from kubeproof.tasks.catalog import render
    from kubeproof.tasks.loader import load

    text = render([load(root) for root in _roots(paths)])
    if check:
        current = CATALOG.read_text() if CATALOG.is_file() else ""
        if current != text:
            err(f"{CATALOG} is out of date: run `kubeproof tasks catalog --write`")
            raise typer.Exit(1)
        console.print(f"{CATALOG} is current")
    elif write:
        CATALOG.write_text(text)
        console.print(f"wrote {CATALOG}")
    else:
        typer.echo(text, nl=False)


def _imports() -> None:
    """`kubeproof tasks import …` (cli/interop.py)."""
    from kubeproof.cli import interop

    app.add_typer(interop.app, name="import")


_imports()
