"""`kubeproof tasks`: list, show and lint task directories."""

import json
from pathlib import Path

import typer
from rich.table import Table

from kubeproof.cli.output import Format, console, emit, err
from kubeproof.tasks import TaskFile, discover, inspect

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
                "problems": len(problems),
            }
        )
    if emit(rows, output):
        return
    table = Table("ID", "TRACK", "AREA", "DIFFICULTY", "TITLE", "PROBLEMS", box=None)
    for r in rows:
        table.add_row(
            r["id"],
            str(r["track"]),
            str(r["area"]),
            str(r["difficulty"]),
            str(r["title"]),
            str(r["problems"]) if r["problems"] else "",
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
        },
        "problems": [str(p) for p in problems],
    }
    if emit(data, output):
        return
    spec = task.spec.kubeproof
    console.print(f"[bold]{task.id}[/]  {spec.title}")
    console.print(
        f"track {spec.track} · area {spec.area} · {spec.difficulty} · expected {spec.expected}"
    )
    console.print(task.instruction, markup=False)
    for p in problems:
        err(p)


@app.command()
def lint(paths: list[Path] = PATHS, output: Format = OUTPUT) -> None:
    """Check task structure; print `path:line: message` per problem. Exits 1 if any."""
    problems = [p for root in _roots(paths) for p in inspect(root)[1]]
    if not emit(
        [{"path": str(p.path), "line": p.line, "message": p.message} for p in problems], output
    ):
        for p in problems:
            typer.echo(str(p))
        if not problems:
            console.print("no problems")
    if problems:
        raise typer.Exit(1)


@app.command()
def schema() -> None:
    """Print the JSON schema of task.toml."""
    typer.echo(json.dumps(TaskFile.model_json_schema(), indent=2))


@app.command()
def validate(
    tasks: list[str] = typer.Argument(
        None, help="Task directories, folders, or id patterns (default: every task)."
    ),
    all_: bool = typer.Option(False, "--all", help="Every task under tasks/."),
    jobs: int = typer.Option(2, "--jobs", "-j", min=1, help="Trials at once."),
    cluster: str = typer.Option("embedded", "--cluster", help="embedded or kubeconfig:PATH."),
    out: Path = typer.Option(None, "--out", help="Run directory (default runs/validate-<time>)."),
    output: Format = OUTPUT,
) -> None:
    """Prove tasks valid on live clusters: the broken state holds, the oracle scores 1, a
    no-op scores 0, every shortcut scores 0 and is caught by a named contract or safety
    rule, and a second round gives the same verdicts. Exits 1 if any task is not valid."""
    from kubeproof.cli.run import default_out, run_plans
    from kubeproof.runner import validate as proving
    from kubeproof.runner.run import write_run
    from kubeproof.tasks.select import select

    selected = select([] if all_ else tasks or [])
    out = out or default_out("validate-")
    out.mkdir(parents=True, exist_ok=True)
    plans = proving.plans(selected, out)
    records = run_plans(plans, cluster, jobs, retries=2, quiet=output is not Format.text)
    write_run(out, {"validate": [t.id for t in selected], "dir": str(out)}, records)
    verdicts = [proving.judge(t, records) for t in selected]
    if not emit(verdicts, output):
        for v in verdicts:
            mark = "[green]valid[/]" if v["valid"] else "[red]NOT VALID[/]"
            console.print(f"{mark} {v['task']}")
            for p in v["proofs"]:
                sign = "[green]✓[/]" if p["ok"] else "[red]✗[/]"
                console.print(f"  {sign} {p['proof']}: {p['detail']}", highlight=False)
        console.print(f"run directory: {out}")
    if not all(v["valid"] for v in verdicts):
        raise typer.Exit(1)


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
