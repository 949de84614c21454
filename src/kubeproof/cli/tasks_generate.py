"""`kubeproof tasks generate` and `kubeproof tasks suites`: the generate track's tasks made
from seeds (docs/generate.md)."""

import time
from pathlib import Path

import typer
from rich.table import Table

from kubeproof.cli.output import Format, console, emit
from kubeproof.generate import store, suites
from kubeproof.generate.task import generate as make_task
from kubeproof.generate.task import parse_id

OUTPUT = typer.Option(Format.text, "--output", "-o", help="Output format.")


def generate(
    out: Path = typer.Option(..., "--out", help="Directory to write the tasks into."),
    suite: str = typer.Option(
        "kubebench-810", "--suite", help="Suite to generate (see `kubeproof tasks suites`)."
    ),
    seed: int = typer.Option(0, "--seed", min=0, help="Suite seed; the same seed, the same bytes."),
    limit: int | None = typer.Option(
        None, "--limit", min=1, help="Only the first N tasks (spread over every type and tier)."
    ),
    ids: list[str] = typer.Option(
        [], "--id", help="Make these task ids again instead of a suite (repeatable)."
    ),
    output: Format = OUTPUT,
) -> None:
    """Generate a suite's tasks (or single tasks by id) into one directory per task."""
    start = time.monotonic()
    if ids:
        tasks = [make_task(t, tier, s, op) for t, tier, op, s in map(parse_id, ids)]
        written = store.write(out, tasks, "ids", seed)
    else:
        written = store.write(out, suites.tasks(suite, seed, limit), suite, seed)
    elapsed = time.monotonic() - start
    summary = {
        "suite": None if ids else suite,
        "seed": seed,
        "out": str(out),
        "count": len(written),
        "seconds": round(elapsed, 3),
        "tasks": [p.name for p in written],
    }
    if emit(summary, output):
        return
    console.print(f"{len(written)} tasks written to {out} in {elapsed:.1f} s")


def suites_(output: Format = OUTPUT) -> None:
    """List the named suites of generated tasks."""
    rows: list[dict] = []
    for s in suites.SUITES.values():
        types = sorted({c.resource_type for c in s.cells})
        tiers = sorted({str(c.tier) for c in s.cells})
        ops = sorted({str(c.operation) for c in s.cells})
        rows.append(
            {
                "name": s.name,
                "tasks": s.size,
                "types": types,
                "tiers": tiers,
                "operations": ops,
                "description": s.description,
            }
        )
    if emit(rows, output):
        return
    table = Table("NAME", "TASKS", "TYPES", "TIERS", "OPERATIONS", "DESCRIPTION", box=None)
    for r in rows:
        table.add_row(
            r["name"],
            str(r["tasks"]),
            str(len(r["types"])),
            str(len(r["tiers"])),
            ",".join(r["operations"]),
            r["description"],
        )
    console.print(table)
