"""`kubeproof tasks`: list, show and lint task directories."""

import json
from pathlib import Path

import typer
from rich.table import Table

from kubeproof.cli.output import Format, console, emit, err
from kubeproof.tasks import TaskFile, discover, inspect

app = typer.Typer(
    help="List, show and lint tasks (Harbor layout + a [kubeproof] section).", no_args_is_help=True
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
