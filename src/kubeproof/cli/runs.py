"""`kubeproof runs`: the results of runs (run.json and trial.json)."""

import re

import typer
from pydantic import BaseModel
from rich.table import Table

from kubeproof.cli.output import Format, console, emit
from kubeproof.results import RunResult, TrialResult, schema

app = typer.Typer(help="Run results: their schema.", no_args_is_help=True)


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
