"""`kubeproof runs`: the results of runs (run.json and trial.json) and the results
database they land in.

Exit codes: 0 success, 1 an error the message explains (no such run, a database that
cannot be opened, a directory that is not a run) or, for `resume`, a trial that still
ended in `error`; 2 bad usage."""

import re

import typer
from pydantic import BaseModel
from rich.table import Table

from kubeproof.cli import runs_compare, runs_db, runs_resume
from kubeproof.cli.output import Format, console, emit
from kubeproof.results import RunResult, TrialResult, schema

app = typer.Typer(
    help="Run results: list, show, compare, export, import and resume runs (the results "
    "database: SQLite in runs/kubeproof.db, or PostgreSQL with --db or $KUBEPROOF_DB), and "
    "the results' schema. Exit codes: 0 success, 1 an error the message explains (or, for "
    "`resume`, a trial still in `error`), 2 bad usage.",
    no_args_is_help=True,
)


def _type(annotation: object) -> str:
    if isinstance(annotation, type):
        return annotation.__name__
    return re.sub(r"\b(?:[A-Za-z_]\w*\.)+(\w+)", r"\1", str(annotation))


def _fields(model: type[BaseModel]) -> Table:
    table = Table("FIELD", "TYPE", "MEANING", title=f"{model.__name__}", box=None)
    for name, info in model.model_fields.items():
        table.add_row(info.alias or name, _type(info.annotation), info.description or "")
    return table


@app.command("schema")
def schema_(
    output: Format = typer.Option(
        Format.json, "--output", "-o", help="json (the JSON Schema), yaml, or text (fields)."
    ),
) -> None:
    """The JSON Schema of run.json (RunResult) and trial.json (TrialResult).

    Published as docs/results.schema.json; docs/results.md explains the fields and how the
    format is versioned."""
    if emit(schema(), output):
        return
    console.print(_fields(RunResult))
    console.print(_fields(TrialResult))


# the results database's commands (cli/runs_db.py, runs_compare.py, runs_resume.py)
app.command("list")(runs_db.list_)
app.command("show")(runs_db.show)
app.command("import")(runs_db.import_)
app.command("export")(runs_db.export_)
app.command("delete")(runs_db.delete)
app.command("compare")(runs_compare.compare)
app.command("resume")(runs_resume.resume)
